package io.promptcache.index.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The service's Micrometer meters (Prometheus at {@code /q/metrics}): lookup latency histogram, lookups and hit
 * ratio per namespace, probes per lookup, store latency, advertise-to-visible lag, collisions, access events.
 */
@ApplicationScoped
public class IndexMetrics {

    private final MeterRegistry registry;
    private final Map<String, Timer> lookupTimers = new ConcurrentHashMap<>();
    private final DistributionSummary probes;
    private final Timer lookupHandler;
    private final Timer advertiseVisible;
    private final Counter collisions;
    private final Counter metadataRecords;
    private final Counter writtenBlocks;
    private final Counter publishedStores;
    private final Map<String, NamespaceCounts> perNamespace = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Timer>> storeTimers = new ConcurrentHashMap<>();
    private final Map<StorePhase, Timer> storePhases = new ConcurrentHashMap<>();

    public IndexMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.probes = DistributionSummary.builder("promptcache.lookup.probes")
                .description("PrefixMap keys read per lookup (binary search)").publishPercentileHistogram()
                .register(registry);
        this.lookupHandler = Timer.builder("promptcache.lookup.handler")
                .description("Lookup handler alone: body already decoded; namespace, hashing, search, answer")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000))
                .maximumExpectedValue(Duration.ofSeconds(1)).register(registry);
        this.advertiseVisible = Timer.builder("promptcache.advertise.visible")
                .description("Time from a store's advertisedAt to the ADVERTISE applied in this replica's PrefixMap "
                        + "(across hosts it includes clock skew)")
                .publishPercentileHistogram().publishPercentiles(0.5, 0.9, 0.99)
                .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry);
        this.collisions = Counter.builder("promptcache.lookup.collisions")
                .description("PrefixMap entries whose block count disagreed with the request (quarantined)")
                .register(registry);
        this.metadataRecords = Counter.builder("promptcache.store.records")
                .description("Records published by stores (object records and ADVERTISEs), counted at the producer")
                .register(registry);
        this.writtenBlocks = Counter.builder("promptcache.store.written.blocks")
                .description("Blocks whose bytes stores wrote (a continuation's shared blocks are not written)")
                .register(registry);
        this.publishedStores = Counter.builder("promptcache.store.published")
                .description("Stores that published an object (deduplicated ones publish nothing)")
                .register(registry);
    }

    /** A store of an object with replicas wrote {@code written} of the {@code wanted} copies it placed. */
    public void copies(int wanted, int written) {
        Counter.builder("promptcache.store.copies").tag("outcome", "written")
                .description("Copies of objects with replicas: written, or placed and failed").register(registry)
                .increment(written);
        if (wanted > written) {
            Counter.builder("promptcache.store.copies").tag("outcome", "failed").register(registry)
                    .increment(wanted - written);
        }
    }

    /** A store published {@code records} records for an object whose bytes of {@code blocks} blocks it wrote. */
    public void published(int records, int blocks) {
        publishedStores.increment();
        metadataRecords.increment(records);
        writtenBlocks.increment(blocks);
    }

    /** Server-side latency of one lookup request by outcome ({@code hit}, {@code miss}, {@code error}). */
    public void lookupLatency(String outcome, long nanos) {
        lookupTimers.computeIfAbsent(outcome, o -> Timer.builder("promptcache.lookup")
                .description("Server-side lookup latency: request body read and parsed, hashed, searched")
                .tag("outcome", o).publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(1)).register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The lookup handler alone (body already decoded): namespace, hashing, search, answer. */
    public void lookupHandler(long nanos) {
        lookupHandler.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One lookup's outcome and probes, counted for its namespace. */
    public void lookup(String namespace, boolean hit, int probeCount) {
        probes.record(probeCount);
        perNamespace.computeIfAbsent(namespace, this::namespaceCounts).record(hit);
    }

    /**
     * A store's latency by the engine's save reason ({@code cold}, ..., {@code unspecified}) and outcome
     * ({@code stored}, {@code continued}, {@code deduplicated}, {@code failed}): its count is the saves by reason and
     * outcome.
     */
    public void store(String reason, String outcome, long nanos) {
        storeTimers.computeIfAbsent(reason, r -> new ConcurrentHashMap<>())
                .computeIfAbsent(outcome, o -> Timer.builder("promptcache.store")
                        .description("Store latency (node writes + transaction)").tag("outcome", o)
                        .tag("reason", reason).publishPercentileHistogram().register(registry))
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** The time one step of a store took (where a slow store spends its time). */
    public void storePhase(StorePhase phase, long nanos) {
        storePhases.computeIfAbsent(phase, p -> Timer.builder("promptcache.store.phase")
                .description("Store latency by step: " + p.description()).tag("phase", p.tag())
                .publishPercentileHistogram().publishPercentiles(0.5, 0.99)
                .minimumExpectedValue(Duration.ofNanos(10_000)).maximumExpectedValue(Duration.ofSeconds(30))
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** An ADVERTISE applied to this replica's PrefixMap. */
    public void advertiseVisible(long advertisedAtMs) {
        if (advertisedAtMs > 0) {
            advertiseVisible.record(Math.max(0, System.currentTimeMillis() - advertisedAtMs), TimeUnit.MILLISECONDS);
        }
    }

    public void collision() {
        collisions.increment();
    }

    private NamespaceCounts namespaceCounts(String namespace) {
        NamespaceCounts counts = new NamespaceCounts(
                Counter.builder("promptcache.lookups").tag("namespace", namespace).tag("outcome", "hit")
                        .register(registry),
                Counter.builder("promptcache.lookups").tag("namespace", namespace).tag("outcome", "miss")
                        .register(registry));
        Gauge.builder("promptcache.lookup.hit.ratio", counts, NamespaceCounts::ratio).tag("namespace", namespace)
                .description("Hits / lookups of the namespace since start").register(registry);
        return counts;
    }

    private static final class NamespaceCounts {

        private final Counter hits;
        private final Counter misses;
        private final LongAdder hitCount = new LongAdder();
        private final LongAdder total = new LongAdder();

        NamespaceCounts(Counter hits, Counter misses) {
            this.hits = hits;
            this.misses = misses;
        }

        void record(boolean hit) {
            (hit ? hits : misses).increment();
            if (hit) {
                hitCount.increment();
            }
            total.increment();
        }

        double ratio() {
            long n = total.sum();
            return n == 0 ? Double.NaN : (double) hitCount.sum() / n;
        }
    }
}
