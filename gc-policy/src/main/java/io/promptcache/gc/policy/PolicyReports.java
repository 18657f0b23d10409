package io.promptcache.gc.policy;

import java.util.function.Function;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.SharedPiece;

/**
 * What the {@link BudgetBook} tells its {@link EvictionPolicy} about every change of an object (became LIVE, used
 * again, trimmed, stopped being LIVE, its content released), at the latest time the book has seen: record times
 * only, so a replay of the same records reports the same.
 */
final class PolicyReports {

    private final EvictionPolicy eviction;
    private final Pieces pieces;
    private final Function<ObjectId, GcObject> objects;
    /** The latest time the book has seen (a use, a store, a plan): when an object that leaves without a plan left. */
    private long clock;

    PolicyReports(EvictionPolicy eviction, Pieces pieces, Function<ObjectId, GcObject> objects) {
        this.eviction = eviction;
        this.pieces = pieces;
        this.objects = objects;
    }

    static boolean isLive(GcObject object) {
        return object != null && object.live() && !object.deleted();
    }

    void advanceTo(long nowMs) {
        clock = Math.max(clock, nowMs);
    }

    /** {@code id} changed from {@code old} to {@code object} (either null when absent); after the book applied it. */
    void report(ObjectId id, GcObject old, GcObject object) {
        boolean wasLive = isLive(old);
        if (isLive(object)) {
            clock = Math.max(clock, object.lastUsedMs());
            if (wasLive && object.record().getBlocks() < old.record().getBlocks()) {
                eviction.trimmed(id, old, object, clock);
            } else if (wasLive && (object.lastUsedMs() > old.lastUsedMs() || object.uses() > old.uses())) {
                eviction.used(id, old, object, clock);
            }
        } else if (wasLive) {
            eviction.gone(id, old, clock, pieces.liveRead(id.toString()));
            // the objects it read that no LIVE object reads any more: their content is gone with it
            for (SharedPiece piece : old.record().getSharedList()) {
                ObjectId writer = ObjectId.parse(piece.getObjectId());
                if (!writer.equals(id) && !isLive(objects.apply(writer)) && !pieces.liveRead(writer.toString())) {
                    eviction.released(writer, old.lastUsedMs());
                }
            }
        }
    }
}
