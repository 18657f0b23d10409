package io.promptcache.gc.policy;

import java.util.HashMap;
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

    /** A snapshot of these accounts. */
    static Usage of(Map<String, Account> nodes, Map<String, Account> tenants, Account total) {
        return new Usage(bytes(nodes), bytes(tenants), bytes(total));
    }

    private static Map<String, Bytes> bytes(Map<String, Account> scope) {
        Map<String, Bytes> copy = new HashMap<>();
        scope.forEach((name, a) -> copy.put(name, bytes(a)));
        return copy;
    }

    private static Bytes bytes(Account a) {
        return new Bytes(a.held(), a.live(), a.objects(), a.inflow().sustained());
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
