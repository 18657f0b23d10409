package io.promptcache.stack.simulate;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import io.promptcache.stack.trace.TraceRequest;

/**
 * The offline reference above every policy: a cache of individual blocks that, when full, evicts the block whose
 * next use is furthest in the future (Belady's MIN), with {@link BlockLru}'s hit rule. It knows the whole trace, so
 * no online policy reaches it; it is not the prefix-aware optimum either (it may keep a block whose parent it
 * evicted), only the yardstick of how much room there is above LRU.
 */
final class BlockBelady {

    private static final long NEVER = Long.MAX_VALUE;

    private final long capacity;
    /** next[i][j]: the next request after i that holds block j of request i, or NEVER. */
    private final long[][] next;
    private final Map<Long, Long> cached = new HashMap<>();
    private final PriorityQueue<long[]> furthest = new PriorityQueue<>((a, b) -> Long.compare(b[0], a[0]));
    private int served;

    BlockBelady(long capacityBlocks, List<TraceRequest> trace) {
        this.capacity = capacityBlocks;
        this.next = nextUses(trace);
    }

    /** For every block of every request, the index of the next request holding it. */
    static long[][] nextUses(List<TraceRequest> trace) {
        long[][] next = new long[trace.size()][];
        Map<Long, Long> seenAt = new HashMap<>();
        for (int i = trace.size() - 1; i >= 0; i--) {
            long[] ids = trace.get(i).hashIds();
            next[i] = new long[ids.length];
            for (int j = 0; j < ids.length; j++) {
                next[i][j] = seenAt.getOrDefault(ids[j], NEVER);
            }
            for (long id : ids) {
                seenAt.put(id, (long) i);
            }
        }
        return next;
    }

    /** Serves the next request of the trace (requests in trace order); returns the blocks that hit. */
    int request(long[] blockIds) {
        int i = served++;
        int matched = 0;
        while (matched < blockIds.length && cached.containsKey(blockIds[matched])) {
            matched++;
        }
        for (int j = 0; j < blockIds.length; j++) {
            cached.put(blockIds[j], next[i][j]);
            furthest.add(new long[]{next[i][j], blockIds[j]});
        }
        while (cached.size() > capacity) {
            long[] top = furthest.poll();
            Long current = cached.get(top[1]);
            if (current != null && current == top[0]) {
                cached.remove(top[1]);
            }
        }
        return matched;
    }
}
