package io.promptcache.stack.up;

import java.util.Optional;

/**
 * Whether {@code up} puts the index replicas first on the CPU ({@link Jvm#indexFirst}), and the line it prints about
 * it. {@code --index-first} asks for it (and {@code up} fails, saying why, where it cannot be had);
 * {@code --no-index-first} turns it off; neither: on wherever this user may have it, off (saying why) elsewhere.
 * Lookups are what an engine waits for, and on shared cores they otherwise wait behind the stores, the GC and the
 * broker (docs/operations.md, "CPU: the index first").
 *
 * @param on whether the replicas go first
 * @param line what {@code up} prints about it
 */
record IndexFirst(boolean on, String line) {

    /**
     * @param asked {@code --index-first} (true), {@code --no-index-first} (false) or neither (null)
     * @param unavailable why it cannot be had here ({@link Jvm#indexFirstUnavailable}); empty: it can
     */
    static IndexFirst of(Boolean asked, Optional<String> unavailable) {
        String first = "the index replicas first (their scheduling group at nice " + Jvm.INDEX_FIRST_NICE
                + ", their event loops SCHED_RR)";
        if (asked != null) {
            return asked ? new IndexFirst(true, first) : new IndexFirst(false, "shared alike (--no-index-first)");
        }
        return unavailable
                .map(why -> new IndexFirst(false, "shared alike: the index first is not available (" + why
                        + "); lookups wait behind the other services when the cores are busy"))
                .orElseGet(() -> new IndexFirst(true, first + ", the default where allowed; --no-index-first: off"));
    }
}
