package io.promptcache.gc.metrics;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.streams.KafkaStreams;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.schema.kafka.ConsumerLag;
import io.quarkus.runtime.StartupEvent;

/**
 * {@code promptcache_gc_lag_records}: the records this instance's tasks are behind the end of their input partitions
 * ({@code prefixes}, {@code objects}, {@code access} and the internal {@code prefix-refs} and {@code budget}), from
 * its stream threads' consumers. A GC that keeps up holds it bounded; one that falls behind grows it.
 */
@ApplicationScoped
public class LagGauge {

    void register(@Observes StartupEvent event, KafkaStreams streams, MeterRegistry registry) {
        Gauge.builder("promptcache_gc_lag_records", streams,
                s -> ConsumerLag.records(s.metrics(), ConsumerLag::taskConsumer))
                .description("records this instance's tasks are behind the end of their input partitions")
                .register(registry);
    }
}
