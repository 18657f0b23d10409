package io.promptcache.storage.store;

/** Where new object bodies go (seed 004's {@code ssd_policy}, plus a RAM-only node). */
public enum TierPolicy {
    /**
     * New bodies go to disk and, when they fit, to RAM as well; the RAM tier is a hot mirror. With async writes the
     * PUT is acknowledged once the body is in RAM and the disk write is queued.
     */
    WRITE_THROUGH,
    /** New bodies go to RAM only; a body reaches disk when the RAM tier evicts it (or at a graceful stop). */
    EVICT_ONLY,
    /** Bodies live in RAM only: capacity is the RAM budget, nothing survives a restart. */
    RAM_ONLY
}
