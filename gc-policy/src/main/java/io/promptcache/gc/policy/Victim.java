package io.promptcache.gc.policy;

import java.util.Comparator;
import java.util.function.ToLongFunction;

import io.promptcache.schema.key.ObjectId;

/**
 * An evictable object as victim selection orders it (seed 001 §2.5, DESIGN.md "Ownership and GC"): superseded
 * objects first (they hold no unique value), then the lowest priority, then the earliest rank (its last use plus its
 * class's bonus under the {@link EvictionPolicy}: the last use alone under LRU), then the longest prefix (most
 * blocks); the object id breaks remaining ties so every instance orders alike.
 *
 * @param cls its class under the policy (fixed while the object is)
 */
record Victim(ObjectId id, boolean superseded, int priority, long lastUsedMs, int blocks, int cls) {

    /** Eviction order within one class (the bonus is the class's, so it changes nothing there). */
    static final Comparator<Victim> EVICTION_ORDER = order(Victim::lastUsedMs);

    /** TTL order: the least recently used first, whatever its priority. */
    static final Comparator<Victim> AGE_ORDER = Comparator.comparingLong(Victim::lastUsedMs)
            .thenComparing(Victim::id);

    /**
     * The class of an object whose content LIVE continuations read whole: evicting it frees nothing (unless it is
     * superseded, it is never taken), so it ranks last, whatever the policy, and is not walked past at every choice.
     */
    static final int HELD = Integer.MIN_VALUE;

    /** Eviction order across classes: as {@link #EVICTION_ORDER}, each victim's last use shifted by its bonus. */
    static Comparator<Victim> evictionOrder(EvictionPolicy policy) {
        return order(v -> v.cls == HELD ? Long.MAX_VALUE : v.lastUsedMs + policy.bonusMs(v.cls));
    }

    /** Superseded first, then the lowest priority, then the earliest {@code rank}, then the most blocks, then id. */
    private static Comparator<Victim> order(ToLongFunction<Victim> rank) {
        return Comparator.comparing((Victim v) -> !v.superseded)
                .thenComparingInt(Victim::priority)
                .thenComparingLong(rank)
                .thenComparing(Comparator.comparingInt(Victim::blocks).reversed())
                .thenComparing(Victim::id);
    }

    /**
     * @param readOn LIVE continuations read bytes it wrote
     * @param freesNothing evicting it alone would free no byte
     */
    static Victim of(ObjectId id, GcObject object, EvictionPolicy policy, boolean readOn, boolean freesNothing) {
        return new Victim(id, object.superseded(), object.record().getPriority(), object.lastUsedMs(),
                object.record().getBlocks(), readOn && freesNothing ? HELD : policy.classOf(object, readOn));
    }
}
