package io.promptcache.index.routing;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
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
    // per tracker (every tier's): {ms, epoch}, oldest first
    private final Map<BlockTracker, ArrayDeque<long[]>> history = new IdentityHashMap<>();

    public UpkeepRound(RoutingTables tables, LoadBoard loads, int maxBlocks, Duration predictionTtl,
            Duration silence) {
        this.tables = tables;
        this.loads = loads;
        this.maxBlocks = maxBlocks;
        this.predictionMs = predictionTtl.toMillis();
        this.silenceMs = silence.toMillis();
    }

    /** What one round did. */
    public record Outcome(long blocksDropped, List<String> backendsDropped) {
    }

    /** One round at wall time {@code now}. */
    public Outcome run(long now) {
        long dropped = 0;
        List<String> gone = new ArrayList<>();
        for (BlockTracker tracker : tables.all().values()) {
            dropped += keep(tracker, now, gone);
        }
        for (BlockTracker tracker : tables.offloaded()) {
            dropped += keep(tracker, now, null);
        }
        return new Outcome(dropped, gone);
    }

    /** One tracker's round; a backend silent in a GPU tracker ({@code gone} not null) is forgotten everywhere. */
    private long keep(BlockTracker tracker, long now, List<String> gone) {
        ArrayDeque<long[]> past = history.computeIfAbsent(tracker, p -> new ArrayDeque<>());
        past.addLast(new long[]{now, tracker.epoch()});
        // whatever happened at or before the epoch remembered for a time happened before that time: hence + 1
        long dropped = tracker.evict(maxBlocks, epochAt(past, now - predictionMs) + 1);
        for (String backend : tracker.silentSince(epochAt(past, now - silenceMs) + 1)) {
            tracker.remove(backend);
            if (gone != null) {
                loads.forget(backend);
                gone.add(backend);
            }
        }
        long keepFrom = now - Math.max(predictionMs, silenceMs);
        while (past.size() > 1 && second(past)[0] <= keepFrom) {
            past.removeFirst(); // the next one already answers for any time before keepFrom
        }
        return dropped;
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
