package io.promptcache.gc.metrics;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.config.MeterFilter;
import io.promptcache.schema.kafka.VerboseKafkaMeters;

/** Keeps the per-store, per-topic and per-partition Kafka meters off /q/metrics ({@link VerboseKafkaMeters}). */
public class KafkaMeterFilter {

    @Produces
    @Singleton
    MeterFilter verboseKafkaMeters() {
        return MeterFilter.deny(id -> VerboseKafkaMeters.verbose(id.getName(), key -> id.getTag(key) != null));
    }
}
