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
 */
public record GcObject(ObjectRecord record, long lastAccessMs, boolean superseded, boolean deleted) {

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
}
