package io.promptcache.gc.policy;

import java.util.Locale;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The order in which budgets evict (docs/architecture.md, "Eviction policies"). Victims are queued per class (a
 * function of the object alone, fixed while its record, uses and depth are) in least-recently-used order; a budget
 * takes the victim whose last use plus its class's {@link #bonusMs bonus} is earliest. {@link BudgetBook} reports
 * what happens to objects so a policy can learn its bonuses; every report carries times from the records (store,
 * access, plan), never the wall clock, so a replay of the same records learns the same.
 */
public interface EvictionPolicy {

    /**
     * The class of {@code object}: victims of one class are in least-recently-used order among themselves.
     * {@code readOn}: LIVE continuations read bytes it wrote (its content lives on in them; evicting it frees only
     * what they do not read).
     */
    int classOf(GcObject object, boolean readOn);

    /**
     * Whether a victim whose bytes LIVE continuations read in part is trimmed (its unread tail freed, the rest kept
     * LIVE: {@link BudgetBook#trim}) rather than evicted. Either frees the same bytes; a trimmed object stays a holder
     * of its own content with its own last use.
     */
    default boolean trims() {
        return false;
    }

    /** What a victim of class {@code victimClass} adds to its last use in eviction order (ms; may be negative). */
    long bonusMs(int victimClass);

    /**
     * {@code id} becomes LIVE (stored, or restored into the book); returns the object as the book keeps it (a policy
     * may complete what it knows of its content: {@link GcObject#depth}, {@link GcObject#fresh}). {@code listed}: its
     * record as stored, with the keys it lists (the book's copy may be without them).
     */
    default GcObject stored(ObjectId id, GcObject object, ObjectRecord listed) {
        return object;
    }

    /** LIVE {@code id} was used again at {@code atMs}: {@code before} as it was, {@code after} with the use. */
    default void used(ObjectId id, GcObject before, GcObject after, long atMs) {
    }

    /**
     * LIVE {@code id} stopped being LIVE at {@code nowMs} (evicted, expired, invalidated, lost or removed);
     * {@code stillRead}: LIVE continuations still read bytes it wrote (its content lives on in them).
     */
    default void gone(ObjectId id, GcObject before, long nowMs, boolean stillRead) {
    }

    /**
     * LIVE {@code id} was trimmed at {@code nowMs}: it keeps the first blocks of {@code before}, those LIVE
     * continuations read ({@code after}), and its unread tail is gone.
     */
    default void trimmed(ObjectId id, GcObject before, GcObject after, long nowMs) {
    }

    /**
     * The content of {@code id}, which stopped being LIVE while continuations still read it, is gone with the last
     * of them (last used at {@code lastUseMs}).
     */
    default void released(ObjectId id, long lastUseMs) {
    }

    /** Time reached {@code nowMs} (a plan): what is due is resolved. */
    default void advance(long nowMs) {
    }

    /** The policy a configuration value names: {@code lru} or {@code reuse}. */
    static EvictionPolicy named(String name) {
        return named(name, true);
    }

    /** As {@link #named(String)}; {@code trims}: whether a policy that can trim does ({@link #trims()}). */
    static EvictionPolicy named(String name, boolean trims) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "lru" -> LRU;
            case "reuse" -> new ReusePolicy(trims);
            default -> throw new IllegalArgumentException("unknown eviction policy '" + name
                    + "': lru or reuse");
        };
    }

    /** Least recently used first: one class, no bonus (stateless, shared). */
    EvictionPolicy LRU = new EvictionPolicy() {

        @Override
        public int classOf(GcObject object, boolean readOn) {
            return 0;
        }

        @Override
        public long bonusMs(int victimClass) {
            return 0;
        }

        @Override
        public String toString() {
            return "lru";
        }
    };
}
