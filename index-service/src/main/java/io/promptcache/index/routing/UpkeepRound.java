package io.promptcache.index.routing;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * One round of the routing upkeep (seed 001 §7.4), pure: each tracker drops its unconfirmed predictions older than
 * {@code predictionTtl}, evicts each backend's least recently used blocks beyond {@code maxBlocks}, and drops the
 * backends that neither sent an event nor were chosen by a route for {@code silence}. Trackers count logical epochs, not time: this class remembers the
 * epoch each tracker was at on each round and turns durations into epochs with that memory.
 */
public final class UpkeepRound {

    private final RoutingTables tables;
    private final LoadBoard loads;
    private final int maxBlocks;
    private final long predictionMs;
    private final long silenceMs;
    private final Map<PoolKey, ArrayDeque<long[]>> history = new HashMap<>(); // {ms, epoch}, oldest first

    public UpkeepRound(RoutingTables tables, LoadBoard loads, int maxBlocks, Duration predictionTtl,
            Duration silence) {
        this.tables = tables;
        this.loads = loads;
        this.maxBlocks = maxBlocks;
        this.predictionMs = predictionTtl.toMillis();
        this.silenceMs = silence.toMillis();
    }

    /** What one round did. */
    public record Outcome(long blocksDropped, java.util.List<String> backendsDropped) {
    }

    /** One round at wall time {@code now}. */
    public Outcome run(long now) {
        long dropped = 0;
        java.util.List<String> gone = new java.util.ArrayList<>();
        for (Map.Entry<PoolKey, BlockTracker> pool : tables.all().entrySet()) {
            BlockTracker tracker = pool.getValue();
            ArrayDeque<long[]> past = history.computeIfAbsent(pool.getKey(), p -> new ArrayDeque<>());
            past.addLast(new long[]{now, tracker.epoch()});
            // whatever happened at or before the epoch remembered for a time happened before that time: hence + 1
            dropped += tracker.evict(maxBlocks, epochAt(past, now - predictionMs) + 1);
            for (String backend : tracker.silentSince(epochAt(past, now - silenceMs) + 1)) {
                tracker.remove(backend);
                loads.forget(backend);
                gone.add(backend);
            }
            long keepFrom = now - Math.max(predictionMs, silenceMs);
            while (past.size() > 1 && second(past)[0] <= keepFrom) {
                past.removeFirst(); // the next one already answers for any time before keepFrom
            }
        }
        return new Outcome(dropped, gone);
    }

    /** The tracker's epoch at wall time {@code at}: the latest remembered at or before it, or -1 (nothing older). */
    private static long epochAt(ArrayDeque<long[]> past, long at) {
        long epoch = -1;
        for (long[] p : past) {
            if (p[0] <= at) {
                epoch = p[1];
            }
        }
        return epoch;
    }

    private static long[] second(ArrayDeque<long[]> past) {
        Iterator<long[]> it = past.iterator();
        it.next();
        return it.next();
    }
}
