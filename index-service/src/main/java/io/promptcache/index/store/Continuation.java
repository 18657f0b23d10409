package io.promptcache.index.store;

import java.util.List;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

/**
 * A store from a hit on: the new object is the first {@code blocks} blocks of {@code parent} ({@code sharedBytes},
 * copied by reference on the parent's node) followed by the bytes of the blocks beyond them.
 *
 * @param parentId the object whose prefix is shared
 * @param parent its record, as read when the store was planned
 * @param nodes the parent's storage nodes where the continuation's copies go (each continues the parent's copy
 *        there: extents are node-local), the first one first; one without replicas
 * @param blocks blocks shared
 * @param sharedBytes bytes shared: the usable bytes of those blocks
 */
public record Continuation(ObjectId parentId, ObjectRecord parent, List<NodeStatus> nodes, int blocks,
        long sharedBytes) {

    public Continuation {
        nodes = List.copyOf(nodes);
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a continuation has a node");
        }
    }

    /** The first copy's node: the one a two-step store's engine uploads to. */
    public NodeStatus node() {
        return nodes.get(0);
    }

    /** This continuation on its first node only. */
    public Continuation onFirst() {
        return new Continuation(parentId, parent, List.of(node()), blocks, sharedBytes);
    }

    /**
     * Whether the node copies the shared bytes (an external S3 endpoint that copies, event-schema
     * {@code ExternalNodes.copiesBytes}): the engine still sends only the new blocks, but the object is recorded as
     * a whole one (every block advertised, every byte its own in the budgets).
     */
    public boolean copied() {
        return ExternalNodes.copiesBytes(node());
    }

    /** The pieces the new object shares, for its record (the GC counts physical bytes from them). */
    public List<SharedPiece> pieces() {
        return SharedBytes.continuing(parentId.toString(), parent, sharedBytes);
    }
}
