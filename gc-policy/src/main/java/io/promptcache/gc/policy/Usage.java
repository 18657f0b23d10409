package io.promptcache.gc.policy;

import java.util.Map;

/**
 * A snapshot of what the budgets hold.
 *
 * @param nodes per node id
 * @param tenants per tenant id
 * @param total the whole cluster
 */
public record Usage(Map<String, Bytes> nodes, Map<String, Bytes> tenants, Bytes total) {

    public static final Usage EMPTY = new Usage(Map.of(), Map.of(), new Bytes(0, 0, 0, 0));

    public Usage {
        nodes = Map.copyOf(nodes);
        tenants = Map.copyOf(tenants);
    }

    /**
     * @param held bytes not yet deleted (LIVE and TOMBSTONED)
     * @param live bytes of LIVE objects
     * @param objects object copies
     * @param inflow sustained inflow: the arrival rate of the slowest quarter of the last horizon, over a horizon
     *        (what the plan expects to arrive within the next)
     */
    public record Bytes(long held, long live, long objects, long inflow) {
    }
}
