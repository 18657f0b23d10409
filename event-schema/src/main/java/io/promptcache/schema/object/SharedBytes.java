package io.promptcache.schema.object;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

/**
 * What an object's bytes cost on its storage node when continuation objects share them: the one rule that
 * index-service (when it records a continuation), gc-processor (physical budgets) and {@code simulate} all use.
 *
 * <p>
 * An object's body is its shared pieces (bytes other objects wrote, {@link ObjectRecord#getSharedList()}) followed by
 * its own piece: the bytes written for it, {@code [shared_bytes, total_bytes)}. An object holds every piece it
 * shares and reads each from its start: the last shared piece up to where its shared bytes end ({@link #reach}). A
 * storage node frees a piece when no object holding it is left, and trims its tail once no object reads that far.
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
     * How far into {@code piece} (one of {@link #held}) the object reads: all of its own, a prefix of a shared one.
     * A shared piece fills the object's body from its offset up to the next piece's (or to the end of the shared
     * bytes): a continuation that shares another continuation reads the first pieces only as far as that one did,
     * though each is listed whole.
     */
    public static long reach(String objectId, ObjectRecord record, SharedPiece piece) {
        if (piece.getObjectId().equals(objectId)) {
            return piece.getBytes();
        }
        long end = record.getSharedBytes();
        for (SharedPiece other : record.getSharedList()) {
            if (other.getOffset() > piece.getOffset()) {
                end = Math.min(end, other.getOffset());
            }
        }
        return Math.min(piece.getBytes(), end - piece.getOffset());
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

    /**
     * The record of {@code record}'s object trimmed to its first {@code keepBytes} bytes (docs/architecture.md,
     * "Trimming an object"): it stays LIVE with the blocks those bytes hold and the keys of those blocks; its own piece
     * ends there, so the node frees the rest once no continuation reads it. Its whole-object checksum no longer
     * applies (0: unknown). {@code keepBytes} must end a block, beyond the shared bytes and before the end; a record
     * listing its keys in pages is not trimmed.
     */
    public static ObjectRecord trimmed(ObjectRecord record, long keepBytes) {
        if (keepBytes <= record.getSharedBytes() || keepBytes >= record.getTotalBytes()) {
            throw new IllegalArgumentException("a trim keeps more than the " + record.getSharedBytes()
                    + " shared bytes and less than all " + record.getTotalBytes() + ", not " + keepBytes);
        }
        if (WrittenKeys.paged(record)) {
            throw new IllegalArgumentException("a record listing its keys in pages is not trimmed");
        }
        int blocks = blocksIn(record, keepBytes);
        ObjectRecord.Builder trimmed = record.toBuilder().setTotalBytes(keepBytes).setBlocks(blocks).setCrc32C(0);
        if (record.getLayout().hasBlockEndOffsets()) {
            trimmed.getLayoutBuilder().getBlockEndOffsetsBuilder().clearOffsets()
                    .addAllOffsets(record.getLayout().getBlockEndOffsets().getOffsetsList().subList(0, blocks));
        }
        if (WrittenKeys.inline(record)) { // the keys of the blocks it keeps (a record lists those of its last blocks)
            int kept = Math.max(0, WrittenKeys.count(record) - (record.getBlocks() - blocks));
            trimmed.setWrittenPrefixHashes(
                    record.getWrittenPrefixHashes().substring(0, kept * record.getWrittenPrefixHashBytes()));
        }
        return trimmed.build();
    }

    /** How many whole blocks the first {@code bytes} of the object are (they must end one). */
    private static int blocksIn(ObjectRecord record, long bytes) {
        BlockLayout layout = record.getLayout();
        if (layout.hasBlockEndOffsets()) {
            int at = Collections.binarySearch(layout.getBlockEndOffsets().getOffsetsList(), bytes);
            if (at >= 0) {
                return at + 1;
            }
        } else {
            long perBlock = layout.getBytesPerBlock() > 0
                    ? layout.getBytesPerBlock()
                    : record.getBlocks() > 0 && record.getTotalBytes() % record.getBlocks() == 0
                            ? record.getTotalBytes() / record.getBlocks()
                            : 0;
            if (perBlock > 0 && bytes % perBlock == 0) {
                return (int) (bytes / perBlock);
            }
        }
        throw new IllegalArgumentException(bytes + " bytes do not end a block of the object");
    }

    private static SharedPiece own(String objectId, ObjectRecord record) {
        return SharedPiece.newBuilder().setObjectId(objectId).setOffset(record.getSharedBytes())
                .setBytes(ownBytes(record)).build();
    }
}
