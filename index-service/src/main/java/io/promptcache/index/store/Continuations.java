package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.lookup.PrefixMatch;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Decides whether a store continues the object its prefix partially hit: only when that object is LIVE, holds the
 * shared blocks with the same byte layout, and its node is live (a continuation must live with its parent: extents
 * are node-local). Otherwise the store is a whole object, placed anywhere. Room is the node's to make: it deletes
 * objects the GC already evicted or nominated, early. But when the parent's node has no room for the new bytes by
 * its last heartbeat (no candidates left: the GC is away, restarting or handing its work over) and another node has
 * room for the whole object, the store is a whole object there: a full node must not refuse a conversation's every
 * next turn while the cluster has room (with {@code fromBlock} the engine is answered 409 and sends it whole). A
 * node that still cannot take the bytes answers 507 (the store then answers 503 with Retry-After, nothing
 * advertised). On an external S3 endpoint a continuation also needs the endpoint's copy mode and at least its
 * smallest part in shared bytes (event-schema {@code ExternalNodes.continues}). With replicas, the continuation
 * continues each live copy of its parent on its node; when the parent has fewer live copies than replicas and the
 * engine sent the whole prompt, the store is a whole object with all its copies instead.
 */
@ApplicationScoped
public class Continuations {

    private final NodeDirectory nodes;
    private final IndexConfig config;

    Continuations(NodeDirectory nodes, IndexConfig config) {
        this.nodes = nodes;
        this.config = config;
    }

    /**
     * The continuation for {@code plan} given the index's longest match, or null for a whole store.
     *
     * @param match the longest live prefix of the plan's chain, shorter than the plan
     */
    public Continuation plan(StorePlan plan, PrefixMatch match) {
        int blocks = match.blocks();
        if (!config.store().continuations() || blocks == 0 || blocks >= plan.blocks()) {
            return null;
        }
        long shared = plan.usableBytes()[blocks - 1];
        ObjectRecord parent = match.object();
        if (match.entry().getUsableBytes() != shared || parent.getNodesCount() == 0 || parent.getPinned()) {
            // another byte layout of the shared blocks; or a pinned parent, whose bytes the GC never frees anyway
            return null;
        }
        List<NodeStatus> copies = copies(parent, shared, plan.totalBytes() - shared);
        if (copies.isEmpty() || copies.size() < config.store().replicas() && plan.fromBlock() == 0) {
            // with fewer live copies of the parent than replicas, the whole prompt at hand makes them all
            return null;
        }
        NodeStatus node = copies.get(0);
        if (Placement.free(node) < plan.totalBytes() - shared && roomElsewhere(node, plan.totalBytes())) {
            return null;
        }
        return new Continuation(ObjectId.parse(match.entry().getObjectId()), parent, copies, blocks, shared);
    }

    /**
     * Where the further copies of a continuation completed on its first node go: the parent's other copies it can go
     * on (with replicas), at most {@code store.replicas - 1}.
     */
    public List<NodeStatus> otherCopies(Continuation c, long totalBytes) {
        if (config.store().replicas() < 2) {
            return List.of();
        }
        List<NodeStatus> others = new ArrayList<>(copies(c.parent(), c.sharedBytes(), totalBytes - c.sharedBytes()));
        others.removeIf(n -> n.getNodeId().equals(c.node().getNodeId()));
        return others.subList(0, Math.min(others.size(), config.store().replicas() - 1));
    }

    /**
     * The parent's copies a continuation can go on (a node that takes writes and could hold the new bytes), in the
     * record's order, at most {@code store.replicas}.
     */
    private List<NodeStatus> copies(ObjectRecord parent, long shared, long newBytes) {
        List<NodeStatus> copies = new ArrayList<>(parent.getNodesCount());
        for (String nodeId : parent.getNodesList()) {
            NodeStatus node = nodes.known(nodeId);
            if (node != null && nodes.takesWrites(node) && ExternalNodes.continues(node, shared)
                    && node.getCapacityBytes() >= newBytes && copies.size() < config.store().replicas()) {
                copies.add(node);
            }
        }
        return copies;
    }

    /** Whether a node other than {@code full} takes writes and has room for {@code bytes} by its last heartbeat. */
    private boolean roomElsewhere(NodeStatus full, long bytes) {
        return nodes.writable().stream().anyMatch(n -> !n.getNodeId().equals(full.getNodeId())
                && Placement.free(n) >= bytes);
    }
}
