package io.promptcache.index.store;

import java.util.List;

import io.promptcache.schema.key.ObjectId;
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
 * @param node the parent's storage node, where the continuation must live
 * @param blocks blocks shared
 * @param sharedBytes bytes shared: the usable bytes of those blocks
 */
public record Continuation(ObjectId parentId, ObjectRecord parent, NodeStatus node, int blocks, long sharedBytes) {

    /** The pieces the new object shares, for its record (the GC counts physical bytes from them). */
    public List<SharedPiece> pieces() {
        return SharedBytes.continuing(parentId.toString(), parent, sharedBytes);
    }
}
