package io.promptcache.index.routing;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The load the router sees: per backend, the routing decisions of every index replica (they all reach every
 * replica as {@code RoutePredicted} events), decayed exponentially with a half-life. Engines' own load figures are
 * not in their KV events; a gateway that knows them passes them with the request instead, and those win.
 */
public final class LoadBoard {

    private final double halfLifeNanos;
    private final LongSupplier nanoClock;
    private final Map<String, double[]> loads = new ConcurrentHashMap<>(); // {value, at nanos}

    public LoadBoard(java.time.Duration halfLife, LongSupplier nanoClock) {
        this.halfLifeNanos = halfLife.toNanos();
        this.nanoClock = nanoClock;
    }

    /** One more request routed to {@code backend}, just now. */
    public void routed(String backend) {
        routed(backend, 0);
    }

    /** A request routed to {@code backend} {@code ageNanos} ago (a decision read back from the log). */
    public void routed(String backend, long ageNanos) {
        long now = nanoClock.getAsLong();
        double weight = Math.pow(0.5, Math.max(0, ageNanos) / halfLifeNanos);
        loads.compute(backend, (b, v) -> new double[]{decayed(v, now) + weight, now});
    }

    /** Requests routed to {@code backend}, each weighted by {@code 2^(-age / half-life)}. */
    public double load(String backend) {
        return decayed(loads.get(backend), nanoClock.getAsLong());
    }

    public void forget(String backend) {
        loads.remove(backend);
    }

    private double decayed(double[] v, long now) {
        return v == null ? 0 : v[0] * Math.pow(0.5, (now - v[1]) / halfLifeNanos);
    }
}
