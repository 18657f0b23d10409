package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;

/**
 * Where a new object goes: weighted rendezvous hashing of its id over the live storage nodes, weight = free bytes
 * (capacity - used) from their heartbeats on {@code nodes}, among the nodes that take new objects
 * ({@link NodeDirectory#writable()}); a node without room for the object is skipped.
 */
@ApplicationScoped
public class Placement {

    private final NodeDirectory nodes;

    Placement(NodeDirectory nodes) {
        this.nodes = nodes;
    }

    /** The nodes that take new objects now. */
    public List<NodeStatus> liveNodes() {
        return nodes.writable();
    }

    /**
     * The node for a new object of {@code bytes}: rendezvous over the live nodes with room by their last heartbeat;
     * when none has room by that (a heartbeat is up to one interval old, and the GC frees room all the time), the
     * live node with the most room, which makes room or refuses with 507 itself. Null only with no live node that
     * could ever hold it (capacity below {@code bytes}).
     */
    public NodeStatus choose(ObjectId objectId, long bytes) {
        List<NodeStatus> live = liveNodes();
        List<Rendezvous.Candidate> candidates = new ArrayList<>(live.size());
        NodeStatus roomiest = null;
        for (NodeStatus node : live) {
            long free = free(node);
            if (free >= bytes) {
                candidates.add(new Rendezvous.Candidate(node.getNodeId(), Math.max(1, free)));
            }
            if (node.getCapacityBytes() >= bytes && (roomiest == null || free > free(roomiest))) {
                roomiest = node;
            }
        }
        Rendezvous.Candidate winner = Rendezvous.choose(objectId.toBytes(), candidates);
        if (winner == null) {
            return roomiest;
        }
        return live.stream().filter(n -> n.getNodeId().equals(winner.nodeId())).findFirst().orElseThrow();
    }

    /**
     * Room on the node as its last heartbeat reported it: capacity - used, plus the bytes it frees on demand
     * (objects the GC evicted that it deletes early for a write).
     */
    public static long free(NodeStatus node) {
        return node.getCapacityBytes() - node.getUsedBytes() + node.getReclaimableBytes();
    }
}
