package io.promptcache.stack.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What a bench run measured, recorded by the workers as they go: latency per operation (HdrHistogram, microseconds)
 * over the run after its warm-up, over the whole run and per minute; request / block / token counts and hits, bytes
 * moved, errors by kind, and a per-second timeline. Counts and hit ratios are always over the whole run.
 */
public final class Report {

    /** The operations whose latency is recorded. */
    public enum Op {

        LOOKUP,
        GET,
        STORE;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final long MAX_MICROS = 120_000_000L;
    private static final int ERROR_SAMPLES = 3;

    private final Map<Op, Histogram> latency = new LinkedHashMap<>();
    /** Only with a warm-up: without one, {@link #latency} is the whole run's. */
    private final Map<Op, Histogram> wholeRun = new LinkedHashMap<>();
    private final Map<Op, Map<Long, Histogram>> byMinute = new LinkedHashMap<>();
    private final long warmupNanos;
    private final LongAdder requests = new LongAdder();
    private final LongAdder hits = new LongAdder();
    private final LongAdder blocks = new LongAdder();
    private final LongAdder hitBlocks = new LongAdder();
    private final LongAdder tokens = new LongAdder();
    private final LongAdder hitTokens = new LongAdder();
    private final LongAdder stores = new LongAdder();
    private final LongAdder deduplicated = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder missedBlockBytes = new LongAdder();
    private final LongAdder continued = new LongAdder();
    private final LongAdder goneOnGet = new LongAdder();
    private final Map<String, LongAdder> errors = new ConcurrentHashMap<>();
    private final Map<String, List<String>> errorSamples = new ConcurrentHashMap<>();
    private final Map<Long, long[]> timeline = new TreeMap<>(); // second -> {requests, hit blocks, blocks, errors}
    private volatile long startNanos = System.nanoTime();
    private volatile long endNanos;

    /** Latencies of operations that started in the first {@code warmup} of the run count only in the whole run's. */
    public Report(Duration warmup) {
        this.warmupNanos = warmup.toNanos();
        for (Op op : Op.values()) {
            latency.put(op, new ConcurrentHistogram(MAX_MICROS, 3));
            if (warmupNanos > 0) {
                wholeRun.put(op, new ConcurrentHistogram(MAX_MICROS, 3));
            }
            byMinute.put(op, new ConcurrentHashMap<>());
        }
    }

    void latency(Op op, long nanos) {
        long micros = Math.min(MAX_MICROS, Math.max(1, nanos / 1000));
        long started = System.nanoTime() - nanos - startNanos;
        Histogram whole = wholeRun.get(op);
        if (whole != null) {
            whole.recordValue(micros);
        }
        if (started >= warmupNanos || whole == null) {
            latency.get(op).recordValue(micros);
        }
        byMinute.get(op).computeIfAbsent(Math.max(0, started) / 60_000_000_000L,
                m -> new ConcurrentHistogram(MAX_MICROS, 2)).recordValue(micros);
    }

    /** A hit whose GET answered 404: counted as a miss and invalidated. */
    void goneOnGet() {
        goneOnGet.increment();
    }

    /** A request done: {@code matched} of its blocks came from the cache. */
    void request(BenchRequest request, int blockSize, int matched) {
        requests.increment();
        blocks.add(request.blocks());
        tokens.add(request.promptTokens());
        if (matched > 0) {
            hits.increment();
            hitBlocks.add(matched);
            hitTokens.add(Math.min(request.promptTokens(), (long) matched * blockSize));
        }
        tick(matched, request.blocks(), 0);
    }

    /**
     * A store of an object of {@code bytes}, of which {@code missedBytes} are the blocks the request missed; bytes
     * written are what the node had to write (the object's bytes but those it shares with the object it continues).
     */
    void stored(long bytes, IndexApi.Stored stored, long missedBytes) {
        stores.increment();
        if (stored.deduplicated()) {
            deduplicated.increment();
        } else {
            bytesWritten.add(bytes - stored.sharedBytes());
            missedBlockBytes.add(missedBytes);
            if (stored.sharedBytes() > 0) {
                continued.increment();
            }
        }
    }

    void read(long bytes) {
        bytesRead.add(bytes);
    }

    /** A failed request; the first {@link #ERROR_SAMPLES} messages of each kind are kept for the report. */
    void error(String kind, String message) {
        errors.computeIfAbsent(kind, k -> new LongAdder()).increment();
        List<String> samples = errorSamples.computeIfAbsent(kind, k -> new ArrayList<>());
        synchronized (samples) {
            if (samples.size() < ERROR_SAMPLES) {
                samples.add(message);
            }
        }
        tick(0, 0, 1);
    }

    private void tick(long matched, long total, long error) {
        long second = (System.nanoTime() - startNanos) / 1_000_000_000L;
        synchronized (timeline) {
            long[] row = timeline.computeIfAbsent(second, s -> new long[4]);
            row[0] += error == 0 ? 1 : 0;
            row[1] += matched;
            row[2] += total;
            row[3] += error;
        }
    }

    /** The run starts now (the workers start). */
    void start() {
        startNanos = System.nanoTime();
    }

    void finish() {
        endNanos = System.nanoTime();
    }

    public long requests() {
        return requests.sum();
    }

    public long stores() {
        return stores.sum();
    }

    public long errorCount() {
        return errors.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** A sample of the errors, "kind: message", or null when there was none. */
    public String anError() {
        for (Map.Entry<String, List<String>> kind : errorSamples.entrySet()) {
            synchronized (kind.getValue()) {
                if (!kind.getValue().isEmpty()) {
                    return kind.getKey() + ": " + kind.getValue().get(0);
                }
            }
        }
        return null;
    }

    public double blockHitRatio() {
        return ratio(hitBlocks.sum(), blocks.sum());
    }

    public double seconds() {
        return ((endNanos == 0 ? System.nanoTime() : endNanos) - startNanos) / 1e9;
    }

    Histogram histogram(Op op) {
        return latency.get(op);
    }

    /** Per minute of the run (by the operations' start): each operation's latency percentiles. */
    public List<Map<String, Object>> minutes() {
        Map<Long, Map<String, Object>> rows = new TreeMap<>();
        byMinute.forEach((op, minutes) -> minutes.forEach((minute, h) -> rows
                .computeIfAbsent(minute, m -> new LinkedHashMap<>(Map.of("minute", m)))
                .put(op.label(), percentiles(h))));
        return new ArrayList<>(rows.values());
    }

    /** The report as plain maps and numbers, for JSON and the console. */
    public Map<String, Object> summary() {
        Map<String, Object> s = new LinkedHashMap<>();
        double seconds = seconds();
        s.put("seconds", round(seconds));
        s.put("requests", requests.sum());
        s.put("requestsPerSecond", round(requests.sum() / seconds));
        s.put("requestHitRatio", round(ratio(hits.sum(), requests.sum())));
        s.put("blockHitRatio", round(blockHitRatio()));
        s.put("tokenHitRatio", round(ratio(hitTokens.sum(), tokens.sum())));
        s.put("blocks", blocks.sum());
        s.put("hitBlocks", hitBlocks.sum());
        s.put("stores", stores.sum());
        s.put("storesDeduplicated", deduplicated.sum());
        s.put("bytesRead", bytesRead.sum());
        s.put("bytesWritten", bytesWritten.sum());
        s.put("storesContinued", continued.sum());
        s.put("hitsGoneOnGet", goneOnGet.sum());
        s.put("writeAmplification", missedBlockBytes.sum() == 0
                ? 0.0
                : (double) bytesWritten.sum() / missedBlockBytes.sum());
        s.put("warmupSeconds", warmupNanos / 1e9);
        s.put("latencyMicros", percentiles(latency));
        if (!wholeRun.isEmpty()) {
            s.put("latencyMicrosWholeRun", percentiles(wholeRun));
        }
        Map<String, Long> errs = new TreeMap<>();
        errors.forEach((k, v) -> errs.put(k, v.sum()));
        s.put("errors", errs);
        Map<String, List<String>> samples = new TreeMap<>();
        errorSamples.forEach((k, v) -> {
            synchronized (v) {
                samples.put(k, List.copyOf(v));
            }
        });
        s.put("errorSamples", samples);
        return s;
    }

    /** Per second of the run: requests done, block hit ratio, errors. */
    public Map<Long, long[]> timeline() {
        synchronized (timeline) {
            return new TreeMap<>(timeline);
        }
    }

    private static Map<String, Object> percentiles(Map<Op, Histogram> histograms) {
        Map<String, Object> ops = new LinkedHashMap<>();
        histograms.forEach((op, h) -> ops.put(op.label(), percentiles(h)));
        return ops;
    }

    private static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("count", h.getTotalCount());
        if (h.getTotalCount() > 0) {
            p.put("mean", round(h.getMean()));
            for (double q : new double[]{50, 90, 99, 99.9}) {
                p.put("p" + (q == 99.9 ? "999" : Integer.toString((int) q)), h.getValueAtPercentile(q));
            }
            p.put("max", h.getMaxValue());
        }
        return p;
    }

    private static double ratio(long a, long b) {
        return b == 0 ? 0 : (double) a / b;
    }

    private static double round(double v) {
        return Math.round(v * 10_000) / 10_000.0;
    }
}
