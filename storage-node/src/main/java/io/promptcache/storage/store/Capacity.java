package io.promptcache.storage.store;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.vertx.core.Context;

/**
 * The node's capacity and room on demand: the one owner of the physical bytes allocated (body files once however many
 * objects share them, inline bodies, parts, reservations of writes in progress). A write reserves its bytes before
 * any is written; when they do not fit, room is made in {@link RoomOrder}'s order - objects the GC marked (evicted,
 * then eviction candidates), then the node's own least recently used objects unused for
 * {@link StoreOptions#selfEvictAfter()} - each deleted through the store (under its commit lock) and reported in
 * {@link #reclaimed()} for the heartbeats.
 */
final class Capacity {

    private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);
    /** How often a write waiting for room looks again (marks and deletes arrive from the GC). */
    private static final long RECLAIM_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /** What room is made through: the store's deletion of an object, under the object's commit lock. */
    interface Deleter {

        Object commitLock(String bucket, String key);

        /** Deletes the object whose entry is {@code meta} (the caller holds its commit lock). */
        void remove(String bucket, String key, ObjectMeta meta);
    }

    private final long capacityBytes;
    private final StoreOptions options;
    private final MetadataStore metadata;
    private final ExtentRefs refs;
    private final RoomOrder room;
    private final TierStats stats;
    private final Deleter deleter;
    private final ReclaimLog reclaimed = new ReclaimLog();
    private final AtomicLong allocatedBytes = new AtomicLong();

    Capacity(StoreOptions options, long allocatedAtStart, MetadataStore metadata, ExtentRefs refs, RoomOrder room,
            TierStats stats, Deleter deleter) {
        this.capacityBytes = options.effectiveCapacity();
        this.options = options;
        this.metadata = metadata;
        this.refs = refs;
        this.room = room;
        this.stats = stats;
        this.deleter = deleter;
        this.allocatedBytes.set(allocatedAtStart);
    }

    long capacityBytes() {
        return capacityBytes;
    }

    /** Physical bytes allocated now (capacity is checked against it). */
    long allocated() {
        return allocatedBytes.get();
    }

    /** Adds {@code delta} (negative: frees) to the allocated bytes: a commit's final size, a deleted body. */
    void adjust(long delta) {
        allocatedBytes.addAndGet(delta);
    }

    /** Releases a reservation (or bytes no longer held). */
    void release(long bytes) {
        adjust(-bytes);
    }

    /** The objects this node deleted for writes lately (heartbeats report them). */
    ReclaimLog reclaimed() {
        return reclaimed;
    }

    /**
     * Reserves capacity; when it is short, first deletes objects the GC marked ({@link Reclaimables}: evicted ones,
     * then eviction candidates), then its own least recently used objects unused for {@link StoreOptions#selfEvictAfter()}
     * ({@link Recency}); with none left, waits up to {@link StoreOptions#reclaimWait()} for the GC to mark more or for
     * deletes to free room (never on an event loop), then refuses with {@code InsufficientStorage}.
     */
    void reserve(long bytes) {
        long deadline = 0;
        while (!tryReserve(bytes)) {
            if (options.reclaimOnDemand() && (reclaimOne() || evictOwn())) {
                continue;
            }
            if (!options.reclaimOnDemand() || options.reclaimWait().isZero() || Context.isOnEventLoopThread()) {
                throw insufficient(bytes);
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + options.reclaimWait().toNanos();
                stats.reclaimWaits.increment();
            } else if (now - deadline >= 0) {
                throw insufficient(bytes);
            }
            LockSupport.parkNanos(RECLAIM_POLL_NANOS);
        }
    }

    private S3Exception insufficient(long bytes) {
        long current = allocatedBytes.get();
        return new S3Exception(S3ErrorCode.INSUFFICIENT_STORAGE, "Not enough free capacity: " + bytes
                + " bytes requested, " + Math.max(0, capacityBytes - current) + " of " + capacityBytes
                + " free. Nothing was written.");
    }

    private boolean tryReserve(long bytes) {
        long current;
        do {
            current = allocatedBytes.get();
            if (current + bytes > capacityBytes) {
                return false;
            }
        } while (!allocatedBytes.compareAndSet(current, current + bytes));
        return true;
    }

    /**
     * Deletes the first marked object in deletion order that frees bytes (an evicted object goes even if it frees
     * none: nothing serves it); false if none is left. A deleted candidate is logged for the heartbeats.
     */
    private boolean reclaimOne() {
        Reclaimables.Candidate next = null;
        while ((next = room.nextMarked(next)) != null) {
            synchronized (deleter.commitLock(next.bucket(), next.key())) {
                ObjectMeta current = current(next.bucket(), next.key(), next.versionId());
                if (current == null) {
                    continue; // replaced or deleted meanwhile: the set forgets it with the change
                }
                if (!next.evicted() && freedBy(current) == 0) {
                    continue; // its bytes are shared with objects that stay: deleting it makes no room
                }
                deleter.remove(next.bucket(), next.key(), current);
                stats.reclaimedEarly.increment();
                if (!next.evicted()) {
                    reclaimed.add(next.bucket(), next.key(), System.currentTimeMillis());
                }
                return true;
            }
        }
        return false;
    }

    /**
     * Deletes this node's least recently used object that frees bytes and was not used for
     * {@link StoreOptions#selfEvictAfter()} (never a pinned one); false if none is left. A lagging or absent GC then
     * costs hits, not writes. The object is reported in the heartbeats like a reclaimed candidate, so the GC tombstones
     * it and lookups stop returning it; a lookup answered meanwhile ends in a GET 404, a miss the engine reports.
     */
    private boolean evictOwn() {
        if (options.selfEvictAfter().isZero()) {
            return false;
        }
        long now = System.currentTimeMillis();
        long newest = now - options.selfEvictAfter().toMillis();
        Recency.Entry next = null;
        while ((next = room.nextOwn(next)) != null && next.lastUseMs() <= newest) {
            synchronized (deleter.commitLock(next.bucket(), next.key())) {
                ObjectMeta current = current(next.bucket(), next.key(), next.versionId());
                if (current == null || freedBy(current) == 0) {
                    continue; // replaced or deleted meanwhile, or its bytes are shared with objects that stay
                }
                deleter.remove(next.bucket(), next.key(), current);
                stats.selfEvicted.increment();
                reclaimed.add(next.bucket(), next.key(), now);
                LOG.debug("Deleted {}/{} for room (unused for {} ms; nothing marked by the GC was left)",
                        next.bucket(), next.key(), now - next.lastUseMs());
                return true;
            }
        }
        return false;
    }

    /** The object's entry if it is still version {@code versionId} (not replaced or deleted since); else null. */
    private ObjectMeta current(String bucket, String key, String versionId) {
        Optional<ObjectMeta> current = metadata.getObject(bucket, key);
        return current.isPresent() && current.get().fileId().equals(versionId) ? current.get() : null;
    }

    /**
     * Physical bytes deleting {@code meta} alone frees now: its inline body, or its files nothing else holds and the
     * tails of files no other holder reads as far.
     */
    private long freedBy(ObjectMeta meta) {
        if (meta.isInline()) {
            return meta.size();
        }
        long bytes = 0;
        for (Map.Entry<String, Long> reach : ExtentRefs.reach(meta.bodyExtents()).entrySet()) {
            bytes += refs.freedWithout(reach.getKey(), reach.getValue());
        }
        return bytes;
    }

    /**
     * Physical bytes that deleting every marked object (evicted or candidate) would free now: the body files all of
     * whose holders are marked, plus their inline bodies. Heartbeats report it so placement counts it as room.
     */
    long reclaimableBytes() {
        Map<String, Integer> holders = new HashMap<>();
        long bytes = 0;
        for (Reclaimables.Candidate c : room.marked()) {
            ObjectMeta current = current(c.bucket(), c.key(), c.versionId());
            if (current == null) {
                continue;
            }
            bytes += current.isInline() ? current.size() : 0;
            Extent.files(current.bodyExtents()).forEach(f -> holders.merge(f, 1, Integer::sum));
        }
        for (Map.Entry<String, Integer> h : holders.entrySet()) {
            ExtentRefs.FileEntry entry = refs.get(h.getKey());
            if (entry != null && entry.refs() == h.getValue()) {
                bytes += entry.size();
            }
        }
        return bytes;
    }
}
