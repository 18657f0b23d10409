package io.promptcache.gc.policy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Bytes that arrived in one budget scope, one bucket per plan. What a scope will most likely receive within the next
 * horizon is what it received within the last one, if it came at a sustained rate. The last horizon's buckets are
 * cut into {@value #PARTS} runs of consecutive plans, and the rate the scope is credited with is the lowest of the
 * four: a load counts only once it has been seen in every quarter of the horizon. A one-off burst (a cache filling
 * up, a batch import) that lands within a few plans leaves some quarter empty and is no rate; a steady load is one
 * from three quarters of a horizon after it starts. With fewer than {@value #PARTS} plans in the horizon there is no
 * evidence of a rate, and the inflow is 0 (the plain watermarks apply).
 */
final class Inflow {

    static final int PARTS = 4;

    private final ArrayDeque<Bucket> buckets = new ArrayDeque<>();
    private long pending;
    private long sustained;

    private record Bucket(long openedAt, long closedAt, long bytes) {
    }

    void arrived(long bytes) {
        pending += bytes;
    }

    /**
     * Closes the bucket of bytes arrived since the previous plan ({@code since}), or drops them when {@code keep} is
     * false (the first plan after a start, whose arrivals are the objects restored, not a rate), forgets the buckets
     * older than the horizon, and works out the sustained inflow.
     */
    void roll(long since, long now, boolean keep, long horizonMs) {
        if (keep && now > since) {
            buckets.addLast(new Bucket(since, now, pending));
        }
        pending = 0;
        while (!buckets.isEmpty() && buckets.peekFirst().closedAt() <= now - horizonMs) {
            buckets.removeFirst();
        }
        sustained = buckets.size() < PARTS ? 0 : (long) (lowestRate() * horizonMs);
    }

    /** Bytes per ms of the slowest of the {@value #PARTS} runs of consecutive buckets. */
    private double lowestRate() {
        List<Bucket> all = new ArrayList<>(buckets);
        double lowest = Double.MAX_VALUE;
        for (int part = 0; part < PARTS; part++) {
            List<Bucket> run = all.subList(part * all.size() / PARTS, (part + 1) * all.size() / PARTS);
            long bytes = run.stream().mapToLong(Bucket::bytes).sum();
            long span = run.get(run.size() - 1).closedAt() - run.get(0).openedAt();
            lowest = Math.min(lowest, (double) bytes / span);
        }
        return lowest;
    }

    /** The most bytes that arrived between two plans within the last horizon (0 before any). */
    long peakRound() {
        long peak = 0;
        for (Bucket bucket : buckets) {
            peak = Math.max(peak, bucket.bytes());
        }
        return peak;
    }

    /** What the next horizon will most likely bring: the lowest quarter's rate over a whole horizon. */
    long sustained() {
        return sustained;
    }
}
