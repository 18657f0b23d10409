package io.promptcache.gc.policy;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

/**
 * The pieces of stored bytes the known objects hold ({@link SharedBytes}): a continuation object shares its
 * parent's pieces on the node, so a piece's bytes count once. Every holder reads a piece from its start: the piece's
 * owner all of it, a continuation up to where its shared bytes end ({@link SharedBytes#reach}). A piece is
 * <em>held</em> up to the furthest byte a known object (LIVE or in grace) reads, and <em>live</em> up to the furthest
 * a LIVE object reads: storage nodes trim a body file's tail once no object reads it, so evicting an object frees
 * the pieces no other LIVE object holds and the tails of the others that no other LIVE object reads as far.
 */
final class Pieces {

    /** One piece: how far its holders read (end -> holders), all of them and the LIVE ones. */
    private static final class Piece {

        private final TreeMap<Long, Integer> reaches = new TreeMap<>();
        private final TreeMap<Long, Integer> liveReaches = new TreeMap<>();

        long held() {
            return reaches.isEmpty() ? 0 : reaches.lastKey();
        }

        long live() {
            return liveReaches.isEmpty() ? 0 : liveReaches.lastKey();
        }
    }

    /** Bytes a scope's held and live totals change by. */
    record Change(long held, long live) {
    }

    private final Map<String, Piece> pieces = new HashMap<>();

    /** Registers ({@code add}) or unregisters one object's hold on its pieces; the change is positive either way. */
    Change hold(String objectId, ObjectRecord record, boolean live, boolean add) {
        long held = 0;
        long liveBytes = 0;
        for (SharedPiece p : SharedBytes.held(objectId, record)) {
            Piece piece = pieces.computeIfAbsent(p.getObjectId(), id -> new Piece());
            long heldBefore = piece.held();
            long liveBefore = piece.live();
            long reach = SharedBytes.reach(objectId, record, p);
            count(piece.reaches, reach, add);
            if (live) {
                count(piece.liveReaches, reach, add);
            }
            held += Math.abs(piece.held() - heldBefore);
            liveBytes += Math.abs(piece.live() - liveBefore);
            if (piece.reaches.isEmpty()) {
                pieces.remove(p.getObjectId());
            }
        }
        return new Change(held, liveBytes);
    }

    /** How many LIVE objects read some of the bytes {@code writerId} wrote (its own piece), the writer included. */
    int liveReaders(String writerId) {
        Piece piece = pieces.get(writerId);
        int readers = 0;
        if (piece != null) {
            for (int n : piece.liveReaches.values()) {
                readers += n;
            }
        }
        return readers;
    }

    /** Whether a LIVE object reads some of the bytes {@code writerId} wrote (its own piece). */
    boolean liveRead(String writerId) {
        Piece piece = pieces.get(writerId);
        return piece != null && piece.live() > 0;
    }

    /** How far other LIVE objects read into the bytes this LIVE object wrote (its own piece): 0 if none does. */
    long readOnTo(String objectId, ObjectRecord record) {
        long own = SharedBytes.ownBytes(record);
        Piece piece = pieces.get(objectId);
        if (own == 0 || piece == null) {
            return 0;
        }
        if (piece.live() > own || piece.liveReaches.getOrDefault(own, 0) > 1) {
            return own; // another reads it whole (or further: a continuation stored before it was trimmed)
        }
        Long below = piece.liveReaches.lowerKey(own);
        return below == null ? 0 : below;
    }

    /** The live bytes evicting this LIVE object would free: what of its pieces no other LIVE object reads. */
    long freedBy(String objectId, ObjectRecord record) {
        long freed = 0;
        for (SharedPiece p : SharedBytes.held(objectId, record)) {
            Piece piece = pieces.get(p.getObjectId());
            if (piece == null) {
                continue;
            }
            long reach = SharedBytes.reach(objectId, record, p);
            if (reach < piece.live() || piece.liveReaches.getOrDefault(reach, 0) > 1) {
                continue; // another LIVE object reads as far
            }
            Long next = piece.liveReaches.lowerKey(reach);
            freed += reach - (next == null ? 0 : next);
        }
        return freed;
    }

    private static void count(TreeMap<Long, Integer> reaches, long reach, boolean add) {
        if (add) {
            reaches.merge(reach, 1, Integer::sum);
        } else if (reaches.merge(reach, -1, Integer::sum) <= 0) {
            reaches.remove(reach);
        }
    }
}
