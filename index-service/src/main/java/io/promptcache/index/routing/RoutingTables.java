package io.promptcache.index.routing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link BlockTracker} per routing pool, created on first use. */
public final class RoutingTables {

    private final Map<PoolKey, BlockTracker> trackers = new ConcurrentHashMap<>();

    public BlockTracker tracker(PoolKey pool) {
        return trackers.computeIfAbsent(pool, p -> new BlockTracker(p.blockSize()));
    }

    /** The tracker of {@code pool} if any event or decision created it, else null. */
    public BlockTracker existing(PoolKey pool) {
        return trackers.get(pool);
    }

    public Map<PoolKey, BlockTracker> all() {
        return Map.copyOf(trackers);
    }
}
