package io.promptcache.storage.store;

import java.util.List;

/**
 * The order in which a write short of room deletes objects on this node: the objects the GC evicted (in their grace
 * window), then the objects the node retired and announced ({@link Retiring}: the index no longer serves them), then
 * the GC's eviction candidates ({@link Reclaimables}), then, when nothing of these is left, the node's own least
 * recently used objects past an age limit ({@link Recency}). Kept in step with every commit and delete, and rebuilt
 * from the index at startup (but the retiring set, which lives in memory).
 */
final class RoomOrder {

    private final Reclaimables marked = new Reclaimables();
    private final Recency own = new Recency();
    private final Retiring retiring = new Retiring();

    /** {@code bucket/key} is now {@code meta}. */
    void update(String bucket, String key, ObjectMeta meta) {
        marked.update(bucket, key, meta);
        own.update(bucket, key, meta);
        retiring.update(bucket, key, meta.fileId());
    }

    /** {@code bucket/key} was read whole at {@code nowMs}. */
    void used(String bucket, String key, long nowMs) {
        marked.used(bucket, key, nowMs);
        own.used(bucket, key, nowMs);
    }

    /**
     * {@code bucket/key} was read in part at {@code nowMs}: a use of the node's own order (a hot prefix is read in
     * part by every request that shares it), not of the GC's candidates (a candidate read only in its first bytes is
     * a partial hit, whose bytes the continuation stored next holds).
     */
    void usedInPart(String bucket, String key, long nowMs) {
        own.used(bucket, key, nowMs);
    }

    /** {@code bucket/key} was deleted. */
    void forget(String bucket, String key) {
        marked.forget(bucket, key);
        own.forget(bucket, key);
        retiring.forget(bucket, key);
    }

    Retiring retiring() {
        return retiring;
    }

    /** The next object the GC marked after {@code previous} (null: the first), or null. */
    Reclaimables.Candidate nextMarked(Reclaimables.Candidate previous) {
        return marked.next(previous);
    }

    /** The next of the node's own objects, least recently used first, after {@code previous}, or null. */
    Recency.Entry nextOwn(Recency.Entry previous) {
        return own.next(previous);
    }

    List<Reclaimables.Candidate> marked() {
        return marked.snapshot();
    }
}
