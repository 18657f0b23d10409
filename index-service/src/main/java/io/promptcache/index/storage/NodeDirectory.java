package io.promptcache.index.storage;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.proto.NodeStatus;

/**
 * The storage nodes as their heartbeats on {@code nodes} describe them, read by event-schema's {@link NodeLiveness}
 * (the rule gc-processor uses too): a LIVE node (UP or DRAINING, heartbeat younger than
 * {@code promptcache.index.storage.liveness-intervals} intervals) has its objects served; only an UP one takes new
 * objects.
 */
@ApplicationScoped
public class NodeDirectory {

    private final ReplicaStores stores;
    private final NodeLiveness liveness;

    NodeDirectory(ReplicaStores stores, IndexConfig config) {
        this.stores = stores;
        this.liveness = NodeLiveness.ofIntervals(config.storage().livenessIntervals());
    }

    /** The node of that id if it is LIVE now (its objects may be read), else null. */
    public NodeStatus serving(String nodeId) {
        NodeStatus node = stores.node(nodeId);
        return node != null && liveness.serves(node, System.currentTimeMillis()) ? node : null;
    }

    /** Whether a new object may go to {@code node} now (LIVE and UP). */
    public boolean takesWrites(NodeStatus node) {
        return liveness.takesWrites(node, System.currentTimeMillis());
    }

    /** The known node of that id, live or not; null if it never sent a heartbeat. */
    public NodeStatus known(String nodeId) {
        return stores.node(nodeId);
    }

    /** The nodes that take new objects now. */
    public List<NodeStatus> writable() {
        long now = System.currentTimeMillis();
        List<NodeStatus> writable = new ArrayList<>();
        for (NodeStatus node : stores.nodes()) {
            if (liveness.takesWrites(node, now)) {
                writable.add(node);
            }
        }
        return writable;
    }
}
