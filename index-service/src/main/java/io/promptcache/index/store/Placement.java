package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
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
    private final int replicas;

    Placement(NodeDirectory nodes, IndexConfig config) {
        this.nodes = nodes;
        this.replicas = config.store().replicas();
        if (replicas < 1 || replicas > 3) {
            throw new IllegalArgumentException("promptcache.index.store.replicas is 1, 2 or 3, not " + replicas);
        }
    }

    /** Copies every object gets ({@code promptcache.index.store.replicas}). */
    public int replicas() {
        return replicas;
    }

    /** The nodes that take new objects now. */
    public List<NodeStatus> liveNodes() {
        return nodes.writable();
    }

    /**
     * The nodes for the {@code count} copies of a new object of {@code bytes}, in the object id's rendezvous order
     * among the live nodes with room by their last heartbeat, none of them {@code except}: fewer when fewer live
     * nodes have room. When none has room by that (a heartbeat is up to one interval old, and the GC frees room all
     * the time), the live node with the most room alone, which makes room or refuses with 507 itself. Empty only
     * with no live node that could ever hold it (capacity below {@code bytes}).
     */
    public List<NodeStatus> chooseCopies(ObjectId objectId, long bytes, int count, String except) {
        List<NodeStatus> live = new ArrayList<>(liveNodes());
        live.removeIf(n -> n.getNodeId().equals(except));
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
        if (candidates.isEmpty()) {
            return roomiest == null ? List.of() : List.of(roomiest);
        }
        List<NodeStatus> chosen = new ArrayList<>(count);
        for (Rendezvous.Candidate c : Rendezvous.rank(objectId.toBytes(), candidates)) {
            if (chosen.size() == count) {
                break;
            }
            chosen.add(live.stream().filter(n -> n.getNodeId().equals(c.nodeId())).findFirst().orElseThrow());
        }
        return chosen;
    }

    /**
     * Room on the node as its last heartbeat reported it: capacity - used, plus the bytes it frees on demand
     * (objects the GC evicted that it deletes early for a write).
     */
    public static long free(NodeStatus node) {
        return node.getCapacityBytes() - node.getUsedBytes() + node.getReclaimableBytes();
    }
}
