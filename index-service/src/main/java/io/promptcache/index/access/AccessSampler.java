package io.promptcache.index.access;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.Topics;
import io.quarkus.runtime.StartupEvent;

/**
 * Aggregates lookup hits per object and flushes one {@code AccessEvent} per object and window to {@code access}
 * (the GC's LRU input): never one record per lookup. A hit costs one map update. Windows last
 * {@code promptcache.index.access.flush-interval}; at most {@code max-objects-per-window} objects per window are
 * tracked (hits of others are dropped and counted), and a window Kafka does not take is dropped and counted: access
 * times are advisory, the cache stays correct without them.
 */
@ApplicationScoped
public class AccessSampler {

    private static final Logger LOG = LoggerFactory.getLogger(AccessSampler.class);

    private final KafkaProducers producers;
    private final IndexConfig.Access config;
    private final ScheduledExecutorService flusher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "promptcache-access-flush");
        t.setDaemon(true);
        return t;
    });
    private volatile Map<String, Window> current = new ConcurrentHashMap<>();
    private volatile long windowStart = System.currentTimeMillis();
    private final LongAdder dropped = new LongAdder();
    private final AtomicLong published = new AtomicLong();

    AccessSampler(KafkaProducers producers, IndexConfig config, MeterRegistry registry) {
        this.producers = producers;
        this.config = config.access();
        FunctionCounter.builder("promptcache.access.events", published, AtomicLong::get)
                .description("AccessEvents published to the access topic").register(registry);
        FunctionCounter.builder("promptcache.access.dropped", dropped, LongAdder::sum)
                .description("Hits not reported (window full or Kafka unavailable)").register(registry);
    }

    void start(@Observes StartupEvent event) {
        long interval = config.flushInterval().toMillis();
        flusher.scheduleWithFixedDelay(this::flushSafely, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** One lookup hit on {@code objectId}. */
    public void hit(String objectId) {
        Map<String, Window> window = current;
        Window w = window.get(objectId);
        if (w == null) {
            if (window.size() >= config.maxObjectsPerWindow()) {
                dropped.increment();
                return;
            }
            w = window.computeIfAbsent(objectId, id -> new Window());
        }
        w.hits.increment();
        w.lastAccessMs = System.currentTimeMillis();
    }

    /** Whether a hit on {@code objectId} waits in the current window (not published yet). */
    public boolean pending(String objectId) {
        return current.containsKey(objectId);
    }

    /** AccessEvents published since start. */
    public long published() {
        return published.get();
    }

    private void flushSafely() {
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.warn("access flush failed: {}", e.toString());
        }
    }

    /** Publishes the current window and starts a new one. */
    public synchronized void flush() {
        Map<String, Window> window = current;
        long start = windowStart;
        current = new ConcurrentHashMap<>();
        windowStart = System.currentTimeMillis();
        if (window.isEmpty()) {
            return;
        }
        for (Map.Entry<String, Window> e : window.entrySet()) {
            AccessEvent event = AccessEvent.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                    .setObjectId(e.getKey()).setHits(e.getValue().hits.sum())
                    .setLastAccessMs(e.getValue().lastAccessMs).setWindowStartMs(start).setWindowEndMs(windowStart)
                    .setReporterId(producers.instanceId()).build();
            try {
                producers.plain().send(producers.record(Topics.ACCESS, ObjectId.parse(e.getKey()), event),
                        (metadata, error) -> {
                            if (error == null) {
                                published.incrementAndGet();
                            } else {
                                dropped.add(event.getHits());
                            }
                        });
            } catch (RuntimeException error) {
                dropped.add(event.getHits());
            }
        }
    }

    /** The last window is not flushed at shutdown (Kafka may be gone): access times are advisory. */
    @PreDestroy
    void stop() {
        flusher.shutdownNow();
    }

    private static final class Window {

        final LongAdder hits = new LongAdder();
        volatile long lastAccessMs;
    }
}
