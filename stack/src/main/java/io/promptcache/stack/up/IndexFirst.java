package io.promptcache.stack.up;

/**
 * Whether {@code up} puts the index replicas first on the CPU ({@link Jvm#indexFirst}), and the line it prints about
 * it. Off unless {@code --index-first} asks for it (and {@code up} fails, saying why, where it cannot be had): it makes
 * lookups wait less on busy shared cores (they are what an engine waits for; docs/operations.md, "CPU: the index
 * first"), but the event loops it puts in the real-time class also do TLS handshakes, key checks and store bodies, so
 * a flood of those can take most of every core from the broker, the GC and the nodes; what ships (the manifests, the
 * images) cannot have it either.
 *
 * @param on whether the replicas go first
 * @param line what {@code up} prints about it
 */
record IndexFirst(boolean on, String line) {

    /**
     * @param asked {@code --index-first} (true), {@code --no-index-first} (false) or neither (null: off)
     */
    static IndexFirst of(Boolean asked) {
        if (Boolean.TRUE.equals(asked)) {
            return new IndexFirst(true, "the index replicas first (their scheduling group at nice "
                    + Jvm.INDEX_FIRST_NICE + ", their event loops SCHED_RR; --index-first)");
        }
        return new IndexFirst(false, "shared alike" + (asked == null
                ? " (the default; --index-first puts the index replicas first)"
                : " (--no-index-first)"));
    }
}
