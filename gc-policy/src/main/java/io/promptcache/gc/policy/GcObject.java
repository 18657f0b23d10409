package io.promptcache.gc.policy;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;

/**
 * What the GC knows of one object: its latest record, when it was last used, and whether it is superseded (every
 * prefix key it advertised now points to another object, so no lookup can return it).
 *
 * @param record the latest ObjectRecord on {@code objects}
 * @param lastAccessMs latest access reported on {@code access}, 0 if none
 * @param superseded no prefix key points to it any more, though some did
 * @param deleted its bytes are deleted on its nodes (phase two is done); it holds nothing, and its record is nulled
 *        once no LIVE object reads the bytes it wrote (its keys are served by those until then)
 * @param uses accesses since it was stored (what {@link ReusePolicy} classes objects by)
 * @param depth turns of content before its own: its parent's + 1 for a continuation (0 for an object stored whole),
 *        or more when it stores again what an evicted object held ({@link ReusePolicy})
 * @param fresh of its own blocks, those no object held lately (-1: all of them, as its record says)
 */
public record GcObject(ObjectRecord record, long lastAccessMs, boolean superseded, boolean deleted, int uses,
        int depth, int fresh) {

    public GcObject(ObjectRecord record, long lastAccessMs, boolean superseded, boolean deleted, int uses,
            int depth) {
        this(record, lastAccessMs, superseded, deleted, uses, depth, -1);
    }

    public GcObject(ObjectRecord record, long lastAccessMs, boolean superseded, boolean deleted) {
        this(record, lastAccessMs, superseded, deleted, 0, 0);
    }

    public GcObject(ObjectRecord record, long lastAccessMs, boolean superseded) {
        this(record, lastAccessMs, superseded, false);
    }

    public boolean live() {
        return record.getState() == ObjectState.OBJECT_STATE_LIVE;
    }

    /** LIVE and not pinned: budgets and TTL may choose it. */
    public boolean evictable() {
        return live() && !deleted && !record.getPinned();
    }

    /** Last use: the latest access, or the creation if it was never accessed. */
    public long lastUsedMs() {
        return Math.max(lastAccessMs, record.getCreatedAtMs());
    }

    /** The same object used (accessed) again at {@code atMs}. */
    public GcObject usedAt(long atMs) {
        return new GcObject(record, Math.max(lastAccessMs, atMs), superseded, deleted, uses + 1, depth, fresh);
    }

    /** The same object counted as used once more, its last use unchanged (a hit of a prefix of it). */
    public GcObject counted() {
        return new GcObject(record, lastAccessMs, superseded, deleted, uses + 1, depth, fresh);
    }

    /** The same object with {@code atMs} as its latest access (its uses unchanged). */
    public GcObject withLastAccess(long atMs) {
        return new GcObject(record, atMs, superseded, deleted, uses, depth, fresh);
    }

    /** The same object at another depth. */
    public GcObject withDepth(int nextDepth) {
        return new GcObject(record, lastAccessMs, superseded, deleted, uses, nextDepth, fresh);
    }

    /**
     * This summary of the object (its record, last access, supersession, deletion) with what the book learned of it
     * ({@code known}: its uses, depth and new content), which a summary does not carry.
     */
    public GcObject learnedFrom(GcObject known) {
        return known == null
                ? this
                : new GcObject(record, lastAccessMs, superseded, deleted, known.uses, known.depth,
                        known.fresh);
    }

    /** The same object with another record and supersession, its uses and depth kept. */
    public GcObject with(ObjectRecord next, boolean nextSuperseded) {
        return new GcObject(next, lastAccessMs, nextSuperseded, deleted, uses, depth, fresh);
    }
}
