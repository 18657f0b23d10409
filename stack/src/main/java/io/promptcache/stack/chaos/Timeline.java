package io.promptcache.stack.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import org.HdrHistogram.Histogram;

/**
 * What the engines saw over time, in buckets of {@link #BUCKET_MS}: lookups, blocks asked and blocks hit (a hit's
 * blocks count once its bytes were checked), lookup and store latencies. A soak compares a window before a fault with
 * one after it cleared, and plots the run. Thread-safe; a few records a second.
 */
final class Timeline {

    static final long BUCKET_MS = 10_000;
    /** Latencies are recorded in microseconds up to this, at 2 significant digits. */
    private static final long MAX_MICROS = 600_000_000L;

    /** A window's figures; latencies in milliseconds, NaN where there were none. */
    record Window(long lookups, long blocksAsked, long blocksHit, double lookupP50, double lookupP99,
            double storeP50, double storeP99) {

        double blockHitRatio() {
            return blocksAsked == 0 ? Double.NaN : (double) blocksHit / blocksAsked;
        }
    }

    private static final class Bucket {

        long lookups;
        long blocksAsked;
        long blocksHit;
        final Histogram lookup = new Histogram(MAX_MICROS, 2);
        final Histogram store = new Histogram(MAX_MICROS, 2);
    }

    private final long startMs;
    private final LongSupplier clock;
    private final List<Bucket> buckets = new ArrayList<>();

    Timeline(long startMs) {
        this(startMs, System::currentTimeMillis);
    }

    /** A timeline whose records are put in buckets by {@code clock} (wall-clock milliseconds). */
    Timeline(long startMs, LongSupplier clock) {
        this.startMs = startMs;
        this.clock = clock;
    }

    long startMs() {
        return startMs;
    }

    synchronized void lookup(long nanos) {
        bucket().lookup.recordValue(Math.min(MAX_MICROS, nanos / 1000));
        bucket().lookups++;
    }

    /** A request's blocks: {@code asked} in its prompt, {@code hit} served from the cache (bytes checked). */
    synchronized void blocks(int asked, int hit) {
        bucket().blocksAsked += asked;
        bucket().blocksHit += hit;
    }

    synchronized void store(long nanos) {
        bucket().store.recordValue(Math.min(MAX_MICROS, nanos / 1000));
    }

    private Bucket bucket() {
        int index = (int) Math.max(0, (clock.getAsLong() - startMs) / BUCKET_MS);
        while (buckets.size() <= index) {
            buckets.add(new Bucket());
        }
        return buckets.get(index);
    }

    /** The figures of the buckets that begin within {@code [fromMs, toMs)} (wall-clock times). */
    synchronized Window window(long fromMs, long toMs) {
        int from = (int) Math.max(0, ceilDiv(fromMs - startMs));
        int to = (int) Math.min(buckets.size(), Math.max(0, ceilDiv(toMs - startMs)));
        Bucket sum = new Bucket();
        for (int i = from; i < to; i++) {
            Bucket b = buckets.get(i);
            sum.lookups += b.lookups;
            sum.blocksAsked += b.blocksAsked;
            sum.blocksHit += b.blocksHit;
            sum.lookup.add(b.lookup);
            sum.store.add(b.store);
        }
        return new Window(sum.lookups, sum.blocksAsked, sum.blocksHit, millis(sum.lookup, 50), millis(sum.lookup, 99),
                millis(sum.store, 50), millis(sum.store, 99));
    }

    /** One window per {@code stepMs} from the start to now: the plot's points. */
    List<Window> series(long stepMs) {
        List<Window> series = new ArrayList<>();
        long now = clock.getAsLong();
        for (long t = startMs; t <= now; t += stepMs) {
            series.add(window(t, t + stepMs));
        }
        return series;
    }

    /** {@code ms / BUCKET_MS} rounded up (JDK 17 has no Math.ceilDiv). */
    private static long ceilDiv(long ms) {
        return -Math.floorDiv(-ms, BUCKET_MS);
    }

    private static double millis(Histogram histogram, double percentile) {
        return histogram.getTotalCount() == 0 ? Double.NaN : histogram.getValueAtPercentile(percentile) / 1000.0;
    }
}
