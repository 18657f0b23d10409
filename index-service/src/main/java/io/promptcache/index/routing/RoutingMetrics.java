package io.promptcache.index.routing;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * Routing's meters: engine events by outcome, decisions by reason, decision latency, blocks dropped by the upkeep.
 */
@ApplicationScoped
public class RoutingMetrics {

    private final MeterRegistry registry;
    private final Map<EngineEventApplier.Outcome, Counter> events = new ConcurrentHashMap<>();
    private final Map<RoutingPolicy.Reason, Counter> decisions = new ConcurrentHashMap<>();
    private final Timer latency;
    private final Counter dropped;
    private final Counter poison;

    public RoutingMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.latency = Timer.builder("promptcache.route").description("Server-side route decision latency")
                .publishPercentileHistogram().minimumExpectedValue(Duration.ofNanos(1_000))
                .maximumExpectedValue(Duration.ofSeconds(1)).register(registry);
        this.dropped = Counter.builder("promptcache.routing.blocks.dropped")
                .description("Tracked blocks dropped by the upkeep (cap, expired predictions, silent backends)")
                .register(registry);
        this.poison = Counter.builder("promptcache.routing.events.unreadable")
                .description("engine-events records that could not be read (sent to dead-letters)").register(registry);
    }

    public void event(EngineEventApplier.Outcome outcome) {
        events.computeIfAbsent(outcome, o -> Counter.builder("promptcache.routing.events").tag("outcome",
                o.name().toLowerCase(java.util.Locale.ROOT)).description("engine-events applied, by outcome")
                .register(registry)).increment();
    }

    public void decision(RoutingPolicy.Reason reason, long nanos) {
        decisions.computeIfAbsent(reason, r -> Counter.builder("promptcache.routing.decisions").tag("reason",
                r.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')).register(registry)).increment();
        latency.record(nanos, TimeUnit.NANOSECONDS);
    }

    public void dropped(long blocks) {
        dropped.increment(blocks);
    }

    public void unreadable() {
        poison.increment();
    }

    /** Events applied so far with {@code outcome}. */
    public long events(EngineEventApplier.Outcome outcome) {
        Counter c = events.get(outcome);
        return c == null ? 0 : (long) c.count();
    }
}
