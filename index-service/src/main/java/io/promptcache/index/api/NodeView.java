package io.promptcache.index.api;

import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.proto.NodeStatus;

/**
 * One storage node as a replica judges it ({@code GET /v1/admin/nodes}).
 *
 * @param id its id in object records
 * @param endpoint its S3 endpoint
 * @param bucket the bucket promptcache writes to on an external S3 endpoint; null for promptcache's own nodes
 * @param state its last heartbeat's state (an external endpoint's: its last probe's, UP or DOWN)
 * @param serves whether this replica serves its objects now (lookups return them)
 * @param takesWrites whether this replica sends new objects there now
 * @param heardMsAgo how long ago its last heartbeat was sent (an external endpoint: its last answered probe); -1 never
 * @param usedBytes bytes used, as its heartbeat says (an external endpoint: 0, its usage is the GC's to count)
 * @param capacityBytes its capacity (an external endpoint: its configured budget)
 */
public record NodeView(String id, String endpoint, String bucket, String state, boolean serves,
        boolean takesWrites, long heardMsAgo, long usedBytes, long capacityBytes) {

    static NodeView of(NodeDirectory.Judged judged, long nowMs) {
        NodeStatus node = judged.node();
        long at = node.getHeartbeatAtMs();
        return new NodeView(node.getNodeId(), node.getEndpoint(),
                node.hasExternal() ? node.getExternal().getBucket() : null,
                node.getState().name().replace("NODE_STATE_", ""), judged.serves(), judged.takesWrites(),
                at > 0 ? Math.max(0, nowMs - at) : -1, node.getUsedBytes(), node.getCapacityBytes());
    }
}
