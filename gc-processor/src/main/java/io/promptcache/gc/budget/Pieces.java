package io.promptcache.gc.budget;

import java.util.HashMap;
import java.util.Map;

import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.SharedPiece;

/**
 * The pieces of stored bytes the known objects hold ({@link SharedBytes}): a continuation object shares its
 * parent's pieces on the node, so a piece's bytes count once, are <em>held</em> while any object holding it is known
 * (LIVE or in grace) and <em>live</em> while any LIVE object holds it. Evicting an object frees only the pieces no
 * other LIVE object holds.
 */
final class Pieces {

    /** One piece: its size and how many known / LIVE objects hold it. */
    private static final class Piece {

        private final long bytes;
        private int holders;
        private int liveHolders;

        Piece(long bytes) {
            this.bytes = bytes;
        }
    }

    /** Bytes a scope's held and live totals change by. */
    record Change(long held, long live) {
    }

    private final Map<String, Piece> pieces = new HashMap<>();

    /** Registers ({@code add}) or unregisters one object's hold on its pieces. */
    Change hold(String objectId, ObjectRecord record, boolean live, boolean add) {
        long held = 0;
        long liveBytes = 0;
        for (SharedPiece p : SharedBytes.held(objectId, record)) {
            Piece piece = pieces.computeIfAbsent(p.getObjectId(), id -> new Piece(p.getBytes()));
            if (add ? piece.holders++ == 0 : --piece.holders == 0) {
                held += piece.bytes;
            }
            if (live && (add ? piece.liveHolders++ == 0 : --piece.liveHolders == 0)) {
                liveBytes += piece.bytes;
            }
            if (piece.holders == 0) {
                pieces.remove(p.getObjectId());
            }
        }
        return new Change(held, liveBytes);
    }

    /** The live bytes evicting this LIVE object would free: its pieces no other LIVE object holds. */
    long freedBy(String objectId, ObjectRecord record) {
        long freed = 0;
        for (SharedPiece p : SharedBytes.held(objectId, record)) {
            Piece piece = pieces.get(p.getObjectId());
            if (piece != null && piece.liveHolders == 1) {
                freed += piece.bytes;
            }
        }
        return freed;
    }
}
