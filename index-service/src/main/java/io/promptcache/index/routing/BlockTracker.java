package io.promptcache.index.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.promptcache.schema.hash.LongestPrefix;

/**
 * Which blocks each inference-engine backend holds in its GPU cache, for one routing pool (one model, block size,
 * LoRA, salt and tenant: blocks of different pools never match). Seed 001 §5-§8, with these choices:
 * <ul>
 * <li>Block ids are the XXH3-64 rolling chain of RFC #1527 ({@code RollingHashChain}): block {@code i}'s id
 * depends on every token before it, so holding block {@code k} means holding the prefix up to {@code k}.</li>
 * <li>The index is kept per backend (an open-addressing map block -> {@link Stamp}); {@link #entry} gives the
 * seed's BlockEntry view (which backends hold a block, with their epochs). Per backend, eviction and removal touch
 * only that backend's map.</li>
 * <li>Longest match by binary search over the request's chain, probing one block per step (seed 001 §7.3), under
 * the contiguity assumption: a backend holding block {@code k} holds {@code 0..k-1}. Engines evict leaves first and
 * the tracker's own eviction cuts chains from their end (see {@link Stamp}), so it holds unless an engine drops a
 * middle block; then the search may report a longer match than the linear walk (routing is a hint).</li>
 * <li>LRU by a logical epoch (one counter, no clock calls); refreshing the blocks a request already had on its
 * backend happens for 1 request in 8 (seed 001 §8.5), always when the request adds blocks.</li>
 * </ul>
 * Thread-safe: reads share a lock, changes take it alone.
 */
public final class BlockTracker {

    private final int blockSize;
    private final Map<String, Backend> backends = new LinkedHashMap<>();
    private final AtomicLong epoch = new AtomicLong();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();

    /** One backend's blocks, the engine's own ids of them, and the order of its events. */
    static final class Backend {

        final LongStampMap blocks = new LongStampMap();
        final LongStampMap engineIds = new LongStampMap(); // engine's block hash -> tracker block id
        final EventOrder order = new EventOrder();
        long lastEventEpoch;

        void clear() {
            blocks.clear();
            engineIds.clear();
        }
    }

    public BlockTracker(int blockSize) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be positive, got " + blockSize);
        }
        this.blockSize = blockSize;
    }

    public int blockSize() {
        return blockSize;
    }

    /**
     * The engine confirmed blocks {@code ids} (tracker chain ids, in sequence order, the first at {@code depth}),
     * known to it as {@code engineIds} (same length, or empty).
     */
    public void stored(String backend, long[] ids, long[] engineIds, int depth) {
        write(() -> {
            Backend b = backends.computeIfAbsent(backend, k -> new Backend());
            long e = epoch.incrementAndGet();
            b.lastEventEpoch = e;
            for (int i = 0; i < ids.length; i++) {
                b.blocks.put(ids[i], Stamp.of(e, true, depth + i));
                if (i < engineIds.length) {
                    b.engineIds.put(engineIds[i], ids[i]);
                }
            }
        });
    }

    /** The tracker id of the block the engine calls {@code engineId}, or {@link LongStampMap#ABSENT}. */
    public long idOf(String backend, long engineId) {
        return read(() -> {
            Backend b = backends.get(backend);
            return b == null ? LongStampMap.ABSENT : b.engineIds.get(engineId);
        });
    }

    /** Depth of a tracked block of {@code backend}, or -1. */
    public int depthOf(String backend, long id) {
        return read(() -> {
            Backend b = backends.get(backend);
            long stamp = b == null ? LongStampMap.ABSENT : b.blocks.get(id);
            return stamp == LongStampMap.ABSENT ? -1 : Stamp.depth(stamp);
        });
    }

    /** The engine evicted the blocks it calls {@code engineIds}; returns how many the tracker knew. */
    public int removed(String backend, long[] engineIds) {
        return write(() -> {
            Backend b = backends.get(backend);
            if (b == null) {
                return 0;
            }
            b.lastEventEpoch = epoch.incrementAndGet();
            int known = 0;
            for (long engineId : engineIds) {
                long id = b.engineIds.remove(engineId);
                if (id != LongStampMap.ABSENT) {
                    b.blocks.remove(id);
                    known++;
                }
            }
            return known;
        });
    }

    /** The engine dropped its whole cache (AllBlocksCleared, or a restart). */
    public void cleared(String backend) {
        write(() -> {
            Backend b = backends.computeIfAbsent(backend, k -> new Backend());
            b.clear();
            b.lastEventEpoch = epoch.incrementAndGet();
        });
    }

    /** Classifies the event id {@code eventId} of {@code backend}, resetting it on a restart. */
    public EventOrder.Verdict order(String backend, long eventId) {
        return write(() -> {
            Backend b = backends.computeIfAbsent(backend, k -> new Backend());
            EventOrder.Verdict verdict = b.order.next(eventId);
            if (verdict == EventOrder.Verdict.RESTART) {
                b.clear();
            }
            return verdict;
        });
    }

    /**
     * A request with chain {@code ids} was routed to {@code backend}: it will hold these blocks once the request
     * ran (seed 001 §7.2). Recorded as predictions until the engine's events confirm or contradict them.
     */
    public void predicted(String backend, long[] ids) {
        write(() -> {
            Backend b = backends.computeIfAbsent(backend, k -> new Backend());
            long e = epoch.incrementAndGet();
            b.lastEventEpoch = e;
            int held = matchLength(b, ids);
            boolean refresh = held < ids.length || (e & 7) == 0;
            if (!refresh) {
                return;
            }
            for (int i = 0; i < ids.length; i++) {
                long old = b.blocks.get(ids[i]);
                boolean confirmed = old != LongStampMap.ABSENT && Stamp.confirmed(old);
                b.blocks.put(ids[i], Stamp.of(e, confirmed, i));
            }
        });
    }

    /** Blocks of {@code ids} that {@code backend} holds from the start (binary search, O(log n) probes). */
    public int match(String backend, long[] ids) {
        return read(() -> {
            Backend b = backends.get(backend);
            return b == null ? 0 : matchLength(b, ids);
        });
    }

    /** Match length per backend, for {@code candidates} (or every known backend when null). */
    public Map<String, Integer> matches(long[] ids, Collection<String> candidates) {
        return read(() -> {
            Map<String, Integer> out = new LinkedHashMap<>();
            for (String backend : candidates == null ? backends.keySet() : candidates) {
                Backend b = backends.get(backend);
                out.put(backend, b == null ? 0 : matchLength(b, ids));
            }
            return out;
        });
    }

    private static int matchLength(Backend b, long[] ids) {
        return LongestPrefix.search(ids.length, k -> b.blocks.contains(ids[k - 1]));
    }

    /** The same answer as {@link #match} by walking block by block; for tests and the benchmark's baseline. */
    int matchLinear(String backend, long[] ids) {
        return read(() -> {
            Backend b = backends.get(backend);
            int n = 0;
            while (b != null && n < ids.length && b.blocks.contains(ids[n])) {
                n++;
            }
            return n;
        });
    }

    /**
     * Background upkeep (seed 001 §7.4): drops predictions made before {@code predictionsBefore} that no event
     * confirmed, then evicts each backend's least recently used blocks down to {@code maxBlocks}.
     *
     * @return blocks dropped
     */
    public long evict(int maxBlocks, long predictionsBefore) {
        return write(() -> {
            long dropped = 0;
            for (Backend b : backends.values()) {
                dropped += evict(b, maxBlocks, predictionsBefore);
            }
            return dropped;
        });
    }

    private static long evict(Backend b, int maxBlocks, long predictionsBefore) {
        List<Long> expired = new ArrayList<>();
        b.blocks.forEach((id, stamp) -> {
            if (!Stamp.confirmed(stamp) && Stamp.epoch(stamp) < predictionsBefore) {
                expired.add(id);
            }
        });
        expired.forEach(b.blocks::remove);
        int over = b.blocks.size() - maxBlocks;
        if (over <= 0) {
            return expired.size();
        }
        long[] stamps = new long[b.blocks.size()];
        int[] n = {0};
        b.blocks.forEach((id, stamp) -> stamps[n[0]++] = stamp);
        Arrays.sort(stamps);
        long threshold = stamps[over - 1];
        int[] ties = {(int) Arrays.stream(stamps, 0, over).filter(st -> st == threshold).count()};
        List<Long> victims = new ArrayList<>(over);
        b.blocks.forEach((id, stamp) -> {
            if (stamp < threshold || (stamp == threshold && ties[0]-- > 0)) {
                victims.add(id);
            }
        });
        victims.forEach(b.blocks::remove);
        return expired.size() + (long) over;
    }

    /** Drops a backend and everything it held (removed on request, or its events stopped). */
    public boolean remove(String backend) {
        return write(() -> backends.remove(backend) != null);
    }

    /**
     * Backends whose last event or routing decision is older than {@code sinceEpoch} (candidates for removal when
     * their events stop).
     */
    public List<String> silentSince(long sinceEpoch) {
        return read(() -> backends.entrySet().stream().filter(e -> e.getValue().lastEventEpoch < sinceEpoch)
                .map(Map.Entry::getKey).toList());
    }

    /** The seed's BlockEntry view of one block: which backends hold it, with their last access epoch. */
    public Map<String, Long> entry(long id) {
        return read(() -> {
            Map<String, Long> holders = new HashMap<>();
            backends.forEach((name, b) -> {
                long stamp = b.blocks.get(id);
                if (stamp != LongStampMap.ABSENT) {
                    holders.put(name, Stamp.epoch(stamp));
                }
            });
            return holders;
        });
    }

    /** Blocks tracked per backend. */
    public Map<String, Integer> sizes() {
        return read(() -> {
            Map<String, Integer> out = new LinkedHashMap<>();
            backends.forEach((name, b) -> out.put(name, b.blocks.size()));
            return out;
        });
    }

    /** The logical clock: advances on every change. */
    public long epoch() {
        return epoch.get();
    }

    private interface Action<T> {

        T run();
    }

    private <T> T read(Action<T> action) {
        lock.readLock().lock();
        try {
            return action.run();
        } finally {
            lock.readLock().unlock();
        }
    }

    private <T> T write(Action<T> action) {
        lock.writeLock().lock();
        try {
            return action.run();
        } finally {
            lock.writeLock().unlock();
        }
    }

    private void write(Runnable action) {
        write(() -> {
            action.run();
            return null;
        });
    }
}
