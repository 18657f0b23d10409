package io.promptcache.index.store;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.lookup.PrefixMatch;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.key.ObjectId;
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
 * advertised).
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
        NodeStatus node = nodes.known(parent.getNodes(0));
        if (node == null || !nodes.takesWrites(node)
                || node.getCapacityBytes() < plan.totalBytes() - shared) {
            return null;
        }
        if (Placement.free(node) < plan.totalBytes() - shared && roomElsewhere(node, plan.totalBytes())) {
            return null;
        }
        return new Continuation(ObjectId.parse(match.entry().getObjectId()), parent, node, blocks, shared);
    }

    /** Whether a node other than {@code full} takes writes and has room for {@code bytes} by its last heartbeat. */
    private boolean roomElsewhere(NodeStatus full, long bytes) {
        return nodes.writable().stream().anyMatch(n -> !n.getNodeId().equals(full.getNodeId())
                && Placement.free(n) >= bytes);
    }
}
