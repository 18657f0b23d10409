package io.promptcache.storage.store;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.vertx.core.Context;

/**
 * Room on demand: a write reserves its bytes ({@link Allocation}) before any is written; when they do not fit, room
 * is made in {@link RoomOrder}'s order - objects the GC evicted, objects this node retired and announced
 * ({@link #retireAhead}), the GC's eviction candidates, then the node's own least recently used objects unused for
 * {@link StoreOptions#selfEvictAfter()} - each deleted through {@link Entries} (under its commit lock) and reported in
 * {@link #reclaimed()} for the heartbeats.
 */
final class Capacity {

    private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);
    /** How often a write waiting for room looks again (marks and deletes arrive from the GC). */
    private static final long RECLAIM_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private final StoreOptions options;
    private final ExtentRefs refs;
    private final RoomOrder room;
    private final TierStats stats;
    private final Allocation allocation;
    private final Entries entries;
    private final ReclaimLog reclaimed = new ReclaimLog();

    Capacity(StoreOptions options, Allocation allocation, ExtentRefs refs, RoomOrder room, TierStats stats,
            Entries entries) {
        this.options = options;
        this.allocation = allocation;
        this.refs = refs;
        this.room = room;
        this.stats = stats;
        this.entries = entries;
    }

    /** Releases a reservation (or bytes no longer held). */
    void release(long bytes) {
        allocation.release(bytes);
    }

    /** The objects this node deleted for writes lately (heartbeats report them). */
    ReclaimLog reclaimed() {
        return reclaimed;
    }

    /** The objects this node retires ahead of need. */
    Retiring retiring() {
        return room.retiring();
    }

    /**
     * Reserves capacity; when it is short, first deletes objects the GC evicted, then those it retired and announced
     * ({@link Retiring}), then the GC's eviction candidates ({@link Reclaimables}), then its own least recently used
     * objects unused for {@link StoreOptions#selfEvictAfter()}
     * ({@link Recency}); with none left, waits up to {@link StoreOptions#reclaimWait()} for the GC to mark more or for
     * deletes to free room (never on an event loop), then refuses with {@code InsufficientStorage}.
     */
    void reserve(long bytes) {
        if (allocation.tryReserve(bytes)) {
            return;
        }
        long start = System.nanoTime();
        try {
            makeRoom(bytes);
        } finally {
            stats.roomWrites.increment();
            stats.roomNanos.add(System.nanoTime() - start);
        }
    }

    private void makeRoom(long bytes) {
        long deadline = 0;
        while (!allocation.tryReserve(bytes)) {
            if (options.reclaimOnDemand()
                    && (reclaimOne(true) || deleteRetired(0) || reclaimOne(false) || evictOwn())) {
                continue;
            }
            if (!options.reclaimOnDemand() || options.reclaimWait().isZero() || Context.isOnEventLoopThread()) {
                throw allocation.insufficient(bytes);
            }
            long now = System.nanoTime();
            if (deadline == 0) {
                deadline = now + options.reclaimWait().toNanos();
                stats.reclaimWaits.increment();
            } else if (now - deadline >= 0) {
                throw allocation.insufficient(bytes);
            }
            LockSupport.parkNanos(RECLAIM_POLL_NANOS);
        }
    }

    /**
     * Deletes the first marked object in deletion order that frees bytes (an evicted object goes even if it frees
     * none: nothing serves it); with {@code evictedOnly}, only an evicted one; false if none is left. A deleted
     * candidate is logged for the heartbeats.
     */
    private boolean reclaimOne(boolean evictedOnly) {
        Reclaimables.Candidate next = null;
        while ((next = room.nextMarked(next)) != null) {
            if (evictedOnly && !next.evicted()) {
                return false; // the evicted ones come first
            }
            if (!next.evicted() && freedBy(next) == 0) {
                // from what the mark remembered of the object's body (the set follows every commit and delete): no
                // metadata read for the candidates that free nothing, most of them when continuations share their
                // bytes; the one that does is checked again below, under its lock, from its metadata
                continue;
            }
            synchronized (entries.commitLock(next.bucket(), next.key())) {
                ObjectMeta current = entries.current(next.bucket(), next.key(), next.versionId());
                if (current == null) {
                    continue; // replaced or deleted meanwhile: the set forgets it with the change
                }
                if (!next.evicted() && freedBy(current) == 0) {
                    continue; // its bytes are shared with objects that stay: deleting it makes no room
                }
                entries.remove(next.bucket(), next.key(), current);
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
            synchronized (entries.commitLock(next.bucket(), next.key())) {
                ObjectMeta current = entries.current(next.bucket(), next.key(), next.versionId());
                if (current == null || freedBy(current) == 0) {
                    continue; // replaced or deleted meanwhile, or its bytes are shared with objects that stay
                }
                entries.remove(next.bucket(), next.key(), current);
                stats.selfEvicted.increment();
                reclaimed.add(next.bucket(), next.key(), now);
                LOG.debug("Deleted {}/{} for room (unused for {} ms; nothing marked by the GC was left)",
                        next.bucket(), next.key(), now - next.lastUseMs());
                return true;
            }
        }
        return false;
    }

    /**
     * Deletes the first retired object that may go ({@link Retiring#deletable}: announced to the index) and frees
     * bytes; with {@code retiredForMs} &gt; 0, only one retired at least that long. False if none is left. Reported like
     * the node's own deletions (the GC tombstones it; the index stopped serving it when it was announced).
     */
    boolean deleteRetired(long retiredForMs) {
        long now = System.currentTimeMillis();
        for (Retiring.Entry next : room.retiring().deletable(now, retiredForMs)) {
            synchronized (entries.commitLock(next.bucket(), next.key())) {
                ObjectMeta current = entries.current(next.bucket(), next.key(), next.versionId());
                if (current == null || freedBy(current) == 0) {
                    // replaced or deleted meanwhile, or its bytes are now shared with objects that stay (deleting it
                    // makes no room): it stops retiring
                    room.retiring().forget(next.bucket(), next.key());
                    continue;
                }
                entries.remove(next.bucket(), next.key(), current);
                stats.retiredDeleted.increment();
                reclaimed.add(next.bucket(), next.key(), now);
                LOG.debug("Deleted {}/{}, retired {} ms ago", next.bucket(), next.key(), now - next.chosenAtMs());
                return true;
            }
        }
        return false;
    }

    /**
     * Retires ahead of need (docs/architecture.md, "Retiring"): while the room this node has or is promised - free
     * bytes, {@code reclaimable} (what the GC's marks free) and what the retiring objects free - is under
     * {@code targetRoom}, retires its own least recently used object that frees bytes and was not used for
     * {@link StoreOptions#selfEvictAfter()} (never a pinned one), up to {@link Retiring#MAX} retiring. Off without
     * room on demand or self-eviction.
     */
    void retireAhead(long targetRoom, long reclaimable) {
        if (!options.reclaimOnDemand() || options.selfEvictAfter().isZero() || targetRoom <= 0) {
            return;
        }
        Retiring retiring = room.retiring();
        long have = allocation.capacityBytes() - allocation.allocated() + reclaimable + retiring.freesBytes();
        long now = System.currentTimeMillis();
        long newest = now - options.selfEvictAfter().toMillis();
        Recency.Entry next = null;
        while (have < targetRoom && retiring.size() < Retiring.MAX && (next = room.nextOwn(next)) != null
                && next.lastUseMs() <= newest) {
            if (retiring.contains(next.bucket(), next.key())) {
                continue;
            }
            ObjectMeta current = entries.current(next.bucket(), next.key(), next.versionId());
            long frees = current == null ? 0 : freedBy(current);
            if (frees > 0 && retiring.add(next.bucket(), next.key(), next.versionId(), frees, now)) {
                have += frees;
            }
        }
    }

    /**
     * Physical bytes deleting {@code meta} alone frees now: its inline body, or its files nothing else holds and the
     * tails of files no other holder reads as far.
     */
    private long freedBy(ObjectMeta meta) {
        return meta.isInline() ? meta.size() : freedBy(ExtentRefs.reach(meta.bodyExtents()));
    }

    /** {@link #freedBy(ObjectMeta)} of a marked object, from what its mark remembered. */
    private long freedBy(Reclaimables.Candidate candidate) {
        return candidate.inlineBytes() > 0 ? candidate.inlineBytes() : freedBy(candidate.reach());
    }

    /** Physical bytes a holder reading these files this far frees when it goes. */
    private long freedBy(Map<String, Long> reach) {
        long bytes = 0;
        for (Map.Entry<String, Long> file : reach.entrySet()) {
            bytes += refs.freedWithout(file.getKey(), file.getValue());
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
            // from what the mark remembered of the object's body: no metadata read (the set follows every commit
            // and delete, so it holds the current version of each marked object)
            bytes += c.inlineBytes();
            c.files().forEach(f -> holders.merge(f, 1, Integer::sum));
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
