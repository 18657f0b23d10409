package io.promptcache.gc.policy;

import java.util.Comparator;

import io.promptcache.schema.key.ObjectId;

/**
 * An evictable object as victim selection orders it (seed 001 §2.5, DESIGN.md "Ownership and GC"): superseded
 * objects first (they hold no unique value), then the lowest priority, then the least recently used, then the
 * longest prefix (most blocks); the object id breaks remaining ties so every instance orders alike.
 */
record Victim(ObjectId id, boolean superseded, int priority, long lastUsedMs, int blocks) {

    /** Eviction order: the first element is evicted first. */
    static final Comparator<Victim> EVICTION_ORDER = Comparator.comparing((Victim v) -> !v.superseded)
            .thenComparingInt(Victim::priority)
            .thenComparingLong(Victim::lastUsedMs)
            .thenComparing(Comparator.comparingInt(Victim::blocks).reversed())
            .thenComparing(Victim::id);

    /** TTL order: the least recently used first, whatever its priority. */
    static final Comparator<Victim> AGE_ORDER = Comparator.comparingLong(Victim::lastUsedMs)
            .thenComparing(Victim::id);

    static Victim of(ObjectId id, GcObject object) {
        return new Victim(id, object.superseded(), object.record().getPriority(), object.lastUsedMs(),
                object.record().getBlocks());
    }
}
