package io.promptcache.stack.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.promptcache.stack.status.Http;
import io.promptcache.stack.status.Metrics;

/**
 * Samples the metadata pipeline while a bench runs, every few seconds, from the services' own metrics: each index
 * replica's lag (records its global stores are behind), the gc-processor's lag (records its tasks are behind) and the
 * bytes the GC counts tombstoned but not yet deleted (held - live, the whole cluster). A pipeline that keeps up holds
 * the lags bounded; one that falls behind grows them, and the nodes fill with tombstoned bytes.
 */
final class PipelineSampler implements AutoCloseable {

    static final String INDEX_LAG = "promptcache_replica_lag_records";
    static final String GC_LAG = "promptcache_gc_lag_records";
    static final String GC_BYTES = "promptcache_gc_bytes";

    /** One sample; a service that did not answer is -1. */
    record Sample(double second, List<Long> indexLag, long gcLag, long tombstonedBytes) {
    }

    private final List<String> replicas;
    private final String gc;
    private final long startNanos = System.nanoTime();
    private final List<Sample> samples = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-pipeline-sampler");
        t.setDaemon(true);
        return t;
    });

    PipelineSampler(List<String> replicas, String gc, long periodSeconds) {
        this.replicas = replicas;
        this.gc = gc;
        timer.scheduleAtFixedRate(this::sample, 0, periodSeconds, TimeUnit.SECONDS);
    }

    private void sample() {
        List<Long> indexLag = new ArrayList<>();
        for (String replica : replicas) {
            indexLag.add(read(replica).map(m -> (long) m.sum(INDEX_LAG, Map.of())).orElse(-1L));
        }
        long gcLag = -1;
        long tombstoned = -1;
        Optional<Metrics> page = gc == null ? Optional.empty() : read(gc);
        if (page.isPresent()) {
            gcLag = (long) page.get().sum(GC_LAG, Map.of());
            tombstoned = (long) (page.get().sum(GC_BYTES, Map.of("scope", "global", "kind", "held"))
                    - page.get().sum(GC_BYTES, Map.of("scope", "global", "kind", "live")));
        }
        Sample sample = new Sample((System.nanoTime() - startNanos) / 1e9, indexLag, gcLag, tombstoned);
        synchronized (samples) {
            samples.add(sample);
        }
    }

    private static Optional<Metrics> read(String service) {
        return Http.get(service + "/q/metrics").map(Metrics::parse);
    }

    /** Takes one last sample and stops. */
    @Override
    public void close() {
        timer.shutdownNow();
        sample();
    }

    List<Sample> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    /** Max and last of each series, and the GC's lag near minutes 2, 5 and 10 of the run. */
    Map<String, Object> summary() {
        List<Sample> all = samples();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("samples", all.size());
        if (all.isEmpty()) {
            return s;
        }
        Sample last = all.get(all.size() - 1);
        s.put("gcLagMax", all.stream().mapToLong(Sample::gcLag).max().orElse(-1));
        s.put("gcLagEnd", last.gcLag());
        s.put("indexLagMax", all.stream().flatMap(x -> x.indexLag().stream()).mapToLong(Long::longValue).max()
                .orElse(-1));
        s.put("indexLagEnd", last.indexLag().stream().mapToLong(Long::longValue).max().orElse(-1));
        s.put("tombstonedBytesMax", all.stream().mapToLong(Sample::tombstonedBytes).max().orElse(-1));
        s.put("tombstonedBytesEnd", last.tombstonedBytes());
        Map<String, Long> atMinute = new LinkedHashMap<>();
        for (int minute : new int[]{2, 5, 10}) {
            all.stream().filter(x -> x.second() <= minute * 60.0).reduce((a, b) -> b)
                    .filter(x -> last.second() >= minute * 60.0 - 10)
                    .ifPresent(x -> atMinute.put(Integer.toString(minute), x.gcLag()));
        }
        s.put("gcLagAtMinute", atMinute);
        return s;
    }
}
