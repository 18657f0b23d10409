package io.promptcache.schema.object;

import java.util.ArrayList;
import java.util.List;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

/**
 * What an object's bytes cost on its storage node when continuation objects share them: the one rule that
 * index-service (when it records a continuation), gc-processor (physical budgets) and {@code simulate} all use.
 *
 * <p>
 * An object's body is its shared pieces (bytes other objects wrote, {@link ObjectRecord#getSharedList()}) followed by
 * its own piece: the bytes written for it, {@code [shared_bytes, total_bytes)}. A piece is freed on the node only
 * when no object holding any of it is left, so an object holds every piece it shares, whole.
 */
public final class SharedBytes {

    private SharedBytes() {
    }

    /** The bytes written for the object itself: what storing it cost. */
    public static long ownBytes(ObjectRecord record) {
        return record.getTotalBytes() - record.getSharedBytes();
    }

    /** Whether the object shares bytes another object wrote. */
    public static boolean isContinuation(ObjectRecord record) {
        return !record.getParentObjectId().isEmpty();
    }

    /** Every piece the object holds: its shared pieces, then its own (when it wrote any byte). */
    public static List<SharedPiece> held(String objectId, ObjectRecord record) {
        List<SharedPiece> pieces = new ArrayList<>(record.getSharedList());
        if (ownBytes(record) > 0) {
            pieces.add(own(objectId, record));
        }
        return pieces;
    }

    /**
     * The pieces of a continuation that shares the first {@code sharedBytes} of {@code parent}'s body: the parent's
     * pieces that start before {@code sharedBytes} (each whole, as the node holds it).
     */
    public static List<SharedPiece> continuing(String parentId, ObjectRecord parent, long sharedBytes) {
        if (sharedBytes <= 0 || sharedBytes > parent.getTotalBytes()) {
            throw new IllegalArgumentException("a continuation shares 1.." + parent.getTotalBytes()
                    + " bytes of its parent, not " + sharedBytes);
        }
        List<SharedPiece> pieces = new ArrayList<>();
        for (SharedPiece piece : held(parentId, parent)) {
            if (piece.getOffset() < sharedBytes) {
                pieces.add(piece);
            }
        }
        return pieces;
    }

    private static SharedPiece own(String objectId, ObjectRecord record) {
        return SharedPiece.newBuilder().setObjectId(objectId).setOffset(record.getSharedBytes())
                .setBytes(ownBytes(record)).build();
    }
}
