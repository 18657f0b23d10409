package io.promptcache.storage.store;

import java.util.concurrent.atomic.LongAdder;

/**
 * Live counters of the RAM tier, the background writer and the read path (seed 004's counters), for metrics and
 * readiness. Zero for a tier that is off.
 */
public final class TierStats {

    private final Tiers tiers;
    final LongAdder staleCleaned = new LongAdder();
    final LongAdder corruptOnRead = new LongAdder();
    final LongAdder reclaimedEarly = new LongAdder();
    final LongAdder selfEvicted = new LongAdder();
    final LongAdder retiredDeleted = new LongAdder();
    final LongAdder reclaimWaits = new LongAdder();
    final LongAdder trimmed = new LongAdder();
    final LongAdder deletes = new LongAdder();
    final LongAdder deletesOfAbsent = new LongAdder();
    final LongAdder roomWrites = new LongAdder();
    final LongAdder roomNanos = new LongAdder();

    TierStats(Tiers tiers) {
        this.tiers = tiers;
    }

    /** Objects this node deleted for room on its own (nothing the GC marked was left). */
    public long selfEvicted() {
        return selfEvicted.sum();
    }

    /** Objects this node retired ahead of need (announced to the index first), then deleted. */
    public long retiredDeleted() {
        return retiredDeleted.sum();
    }

    /** Objects the GC had evicted, deleted before the end of their grace window to make room for a write. */
    public long reclaimedEarly() {
        return reclaimedEarly.sum();
    }

    /** Writes that found nothing marked to delete and waited for the GC to mark more (refused or not after). */
    public long reclaimWaits() {
        return reclaimWaits.sum();
    }

    /** Writes whose bytes did not fit at once: they made room (or waited for it, or were refused). */
    public long roomWrites() {
        return roomWrites.sum();
    }

    /** Seconds those writes spent making room (deleting marked or own objects, waiting for marks). */
    public double roomSeconds() {
        return roomNanos.sum() / 1e9;
    }

    /** DELETEs that removed an object (S3 DeleteObject of a key that was there). */
    public long deletes() {
        return deletes.sum();
    }

    /** DELETEs of a key that was not there: no-ops (a repeated delete, or one of an object the node removed itself). */
    public long deletesOfAbsent() {
        return deletesOfAbsent.sum();
    }

    /** Body files cut short because no object reads their tail any more (its last reader was deleted). */
    public long trimmed() {
        return trimmed.sum();
    }

    public long ramCapacityBytes() {
        return tiers.ram() == null ? 0 : tiers.ram().capacityBytes();
    }

    public long ramUsedBytes() {
        return tiers.ram() == null ? 0 : tiers.ram().usedBytes();
    }

    public long ramObjects() {
        return tiers.ram() == null ? 0 : tiers.ram().objects();
    }

    public long ramHits() {
        return tiers.ram() == null ? 0 : tiers.ram().hits();
    }

    public long ramMisses() {
        return tiers.ram() == null ? 0 : tiers.ram().misses();
    }

    /** Hits over lookups of the RAM tier since start; 0 before the first lookup. */
    public double ramHitRatio() {
        long hits = ramHits();
        long total = hits + ramMisses();
        return total == 0 ? 0 : (double) hits / total;
    }

    public long ramEvictions() {
        return tiers.ram() == null ? 0 : tiers.ram().evictions();
    }

    public long writerQueueDepth() {
        return tiers.writer() == null ? 0 : tiers.writer().queueDepth();
    }

    public long writerPending() {
        return tiers.writer() == null ? 0 : tiers.writer().pendingWrites();
    }

    public long writerSaves() {
        return tiers.writer() == null ? 0 : tiers.writer().saves();
    }

    public long writerFailures() {
        return tiers.writer() == null ? 0 : tiers.writer().failures();
    }

    public long writerDedupSkips() {
        return tiers.writer() == null ? 0 : tiers.writer().dedupSkips();
    }

    public long writerQueueFullFallbacks() {
        return tiers.writer() == null ? 0 : tiers.writer().queueFullFallbacks();
    }

    public long writerObsoleteSkips() {
        return tiers.writer() == null ? 0 : tiers.writer().obsoleteSkips();
    }

    public long writerRetries() {
        return tiers.writer() == null ? 0 : tiers.writer().retries();
    }

    /** Entries dropped because their body was nowhere (lost before reaching disk) or failed verify-on-read. */
    public long staleEntriesCleaned() {
        return staleCleaned.sum();
    }

    public long corruptBodiesOnRead() {
        return corruptOnRead.sum();
    }
}
