package io.promptcache.gc.policy;

import java.util.Map;

import io.promptcache.schema.node.NodeLiveness;

/**
 * The limits a plan enforces.
 *
 * @param highWatermark a budget is enforced once its held bytes exceed this fraction of its limit
 * @param lowWatermark enforcing tombstones victims until its live bytes are at most this fraction
 * @param ttlMs objects unused for longer expire; 0 = no TTL
 * @param globalLimit bytes of the whole cluster; 0 = none
 * @param tenantLimits bytes per tenant
 * @param liveness when a node is lost (its LIVE objects are dropped)
 * @param reclaimOnDemand the storage nodes make room for writes themselves: a node that says so in its heartbeats
 *        ({@code reclaims_on_demand}) gets eviction candidates {@link BudgetBook#nominate nominated} instead of
 *        tombstones for its budget; evicted objects are marked reclaimable, so tenant and global budgets count bytes
 *        in the grace window as room (enforced on live bytes plus one round of inflow, from the high watermark on)
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
