package io.promptcache.index.routing;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** One {@link BlockTracker} per routing pool and tier, created on first use. */
public final class RoutingTables {

    private final Map<PoolKey, BlockTracker> trackers = new ConcurrentHashMap<>();
    private final Map<Tiered, BlockTracker> offloaded = new ConcurrentHashMap<>();

    /** The GPU tier's tracker of {@code pool}: what routing decides on. */
    public BlockTracker tracker(PoolKey pool) {
        return trackers.computeIfAbsent(pool, p -> new BlockTracker(p.blockSize()));
    }

    public BlockTracker tracker(PoolKey pool, Tier tier) {
        return tier == Tier.GPU
                ? tracker(pool)
                : offloaded.computeIfAbsent(new Tiered(pool, tier), t -> new BlockTracker(pool.blockSize()));
    }

    /** The tracker of {@code pool} if any event or decision created it, else null. */
    public BlockTracker existing(PoolKey pool) {
        return trackers.get(pool);
    }

    /** The tracker of {@code pool}'s {@code tier} if an event created it, else null. */
    public BlockTracker existing(PoolKey pool, Tier tier) {
        return tier == Tier.GPU ? existing(pool) : offloaded.get(new Tiered(pool, tier));
    }

    /** The GPU tier's trackers. */
    public Map<PoolKey, BlockTracker> all() {
        return Map.copyOf(trackers);
    }

    /** The CPU and storage tiers' trackers. */
    public List<BlockTracker> offloaded() {
        return List.copyOf(offloaded.values());
    }

    private record Tiered(PoolKey pool, Tier tier) {
    }
}
