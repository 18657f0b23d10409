package io.promptcache.storage.store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How an {@link ObjectStore} is laid out and tiered.
 *
 * @param dataDir metadata and body files
 * @param durability fsync or not before acknowledging (and, for async writes, retries)
 * @param capacityBytes bytes of bodies accepted (for {@code RAM_ONLY}, at most the RAM budget is used)
 * @param policy where new bodies go
 * @param ramCapacityBytes byte budget of the RAM tier; 0 turns it off ({@code WRITE_THROUGH} only)
 * @param asyncWrites with {@code WRITE_THROUGH}: acknowledge once in RAM, write to disk in the background
 * @param writerQueueSize bound of the background writer's queue
 * @param writeRetries attempts after a failed background write with {@code PERSISTENT} durability
 * @param drainTimeout how long a graceful stop waits for the background writer to drain
 * @param verifyOnRead check the chunks a GET reads from a body file against their CRC32C before serving them
 * @param inlineThresholdBytes bodies of at most this many bytes live in their index entry, not in a file (0: none)
 * @param reclaimOnDemand a write that needs room first deletes the objects the GC marked ({@link Reclaimables})
 * @param reclaimWait with {@code reclaimOnDemand}, how long a write (off the event loop) short of room waits for the
 *        GC to mark more before it is refused (0: refused at once)
 * @param selfEvictAfter with {@code reclaimOnDemand}, a write that finds nothing marked left deletes the node's own
 *        least recently used objects unused for at least this long ({@link Recency}; 0: never)
 */
public record StoreOptions(Path dataDir, Durability durability, long capacityBytes, TierPolicy policy,
        long ramCapacityBytes, boolean asyncWrites, int writerQueueSize, int writeRetries, Duration drainTimeout,
        boolean verifyOnRead, int inlineThresholdBytes, boolean reclaimOnDemand, Duration reclaimWait,
        Duration selfEvictAfter) {

    public StoreOptions {
        if (capacityBytes <= 0) {
            throw new IllegalArgumentException("capacity must be positive, got " + capacityBytes);
        }
        if (ramCapacityBytes < 0) {
            throw new IllegalArgumentException("the RAM budget cannot be negative, got " + ramCapacityBytes);
        }
        if (policy != TierPolicy.WRITE_THROUGH && ramCapacityBytes == 0) {
            throw new IllegalArgumentException("policy " + policy.name().toLowerCase(java.util.Locale.ROOT)
                    + " keeps bodies in RAM: set a RAM budget (promptcache.storage.tier.ram-capacity-bytes > 0)");
        }
        if (asyncWrites && (policy != TierPolicy.WRITE_THROUGH || ramCapacityBytes == 0)) {
            throw new IllegalArgumentException(
                    "async writes apply to write_through with a RAM tier (the body is acknowledged from RAM)");
        }
        if (inlineThresholdBytes < 0 || inlineThresholdBytes > MAX_INLINE_BYTES) {
            throw new IllegalArgumentException("the inline threshold must be 0 to " + MAX_INLINE_BYTES
                    + " bytes, got " + inlineThresholdBytes);
        }
        if (selfEvictAfter == null || selfEvictAfter.isNegative()) {
            throw new IllegalArgumentException("the self-eviction age must be zero or positive, got " + selfEvictAfter);
        }
        if (reclaimWait == null || reclaimWait.isNegative()) {
            throw new IllegalArgumentException("the reclaim wait must be zero or positive, got " + reclaimWait);
        }
        if (writerQueueSize < 1) {
            throw new IllegalArgumentException("the writer queue needs room for at least one write");
        }
    }

    /** Inline bodies are held in heap while written and read whole with their entry: keep them small. */
    static final int MAX_INLINE_BYTES = 1 << 20;

    /** Disk only: no RAM tier, synchronous writes, every body in a file, reads checked against their checksums. */
    public static StoreOptions diskOnly(Path dataDir, Durability durability, long capacityBytes) {
        return new StoreOptions(dataDir, durability, capacityBytes, TierPolicy.WRITE_THROUGH, 0, false, 512, 3,
                Duration.ofSeconds(5), true, 0, true, Duration.ZERO, Duration.ZERO);
    }

    public StoreOptions withTiers(TierPolicy newPolicy, long newRamCapacity, boolean newAsyncWrites) {
        return new StoreOptions(dataDir, durability, capacityBytes, newPolicy, newRamCapacity, newAsyncWrites,
                writerQueueSize, writeRetries, drainTimeout, verifyOnRead, inlineThresholdBytes, reclaimOnDemand,
                reclaimWait, selfEvictAfter);
    }

    public StoreOptions withVerifyOnRead(boolean verify) {
        return new StoreOptions(dataDir, durability, capacityBytes, policy, ramCapacityBytes, asyncWrites,
                writerQueueSize, writeRetries, drainTimeout, verify, inlineThresholdBytes, reclaimOnDemand,
                reclaimWait, selfEvictAfter);
    }

    public StoreOptions withInlineThreshold(int bytes) {
        return new StoreOptions(dataDir, durability, capacityBytes, policy, ramCapacityBytes, asyncWrites,
                writerQueueSize, writeRetries, drainTimeout, verifyOnRead, bytes, reclaimOnDemand, reclaimWait,
                selfEvictAfter);
    }

    public StoreOptions withReclaimWait(Duration wait) {
        return new StoreOptions(dataDir, durability, capacityBytes, policy, ramCapacityBytes, asyncWrites,
                writerQueueSize, writeRetries, drainTimeout, verifyOnRead, inlineThresholdBytes, reclaimOnDemand, wait,
                selfEvictAfter);
    }

    public StoreOptions withSelfEvictAfter(Duration age) {
        return new StoreOptions(dataDir, durability, capacityBytes, policy, ramCapacityBytes, asyncWrites,
                writerQueueSize, writeRetries, drainTimeout, verifyOnRead, inlineThresholdBytes, reclaimOnDemand,
                reclaimWait, age);
    }

    /** The capacity actually enforced: a RAM-only node cannot hold more than its RAM budget. */
    long effectiveCapacity() {
        return policy == TierPolicy.RAM_ONLY ? Math.min(capacityBytes, ramCapacityBytes) : capacityBytes;
    }
}
