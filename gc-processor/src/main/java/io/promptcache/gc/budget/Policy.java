package io.promptcache.gc.budget;

import java.util.Map;

import io.promptcache.gc.storage.NodeLiveness;

/**
 * The limits a plan enforces.
 *
 * @param highWatermark a budget is enforced once its held bytes exceed this fraction of its limit
 * @param lowWatermark enforcing tombstones victims until its live bytes are at most this fraction
 * @param ttlMs objects unused for longer expire; 0 = no TTL
 * @param globalLimit bytes of the whole cluster; 0 = none
 * @param tenantLimits bytes per tenant
 * @param liveness when a node is lost (its LIVE objects are dropped)
 * @param reclaimOnDemand the storage nodes delete evicted objects early when a write needs room (the GC marks them
 *        reclaimable): bytes in the grace window are then room, so a budget is enforced on its live bytes (plus the
 *        inflow of one round, until the next plan) alone, from the high watermark on (so a full node at a high
 *        watermark of 1 still sheds bytes)
 */
public record Policy(double highWatermark, double lowWatermark, long ttlMs, long globalLimit,
        Map<String, Long> tenantLimits, NodeLiveness liveness, boolean reclaimOnDemand) {

    /** Limits for storage that keeps evicted bytes through the grace window. */
    public Policy(double highWatermark, double lowWatermark, long ttlMs, long globalLimit,
            Map<String, Long> tenantLimits, NodeLiveness liveness) {
        this(highWatermark, lowWatermark, ttlMs, globalLimit, tenantLimits, liveness, false);
    }

    public Policy {
        if (!(lowWatermark > 0 && lowWatermark <= highWatermark && highWatermark <= 1)) {
            throw new IllegalArgumentException("watermarks must satisfy 0 < low (" + lowWatermark + ") <= high ("
                    + highWatermark + ") <= 1");
        }
        tenantLimits = Map.copyOf(tenantLimits);
    }
}
