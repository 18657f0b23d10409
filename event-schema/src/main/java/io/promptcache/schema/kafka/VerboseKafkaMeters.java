package io.promptcache.schema.kafka;

import java.util.List;
import java.util.function.Predicate;

/**
 * The Kafka client and Kafka Streams meters a service does not publish on {@code /q/metrics}: one series per state
 * store, processor node, stream topic or consumed partition. A gc-processor carried ~7,500 series (1.5 MB a scrape)
 * under the issue-31 bench, two thirds of them per-store RocksDB and store-operation meters, most of them never
 * recorded at Kafka Streams' default INFO level. What stays: client, thread and task meters, and the services' own
 * lag gauges (read from the clients' metrics directly, {@link ConsumerLag}). Index-service and gc-processor deny
 * these with a Micrometer filter.
 */
public final class VerboseKafkaMeters {

    /** Micrometer name prefixes of meters kept per store, per processor node and per stream topic. */
    private static final List<String> PER_ITEM = List.of("kafka.stream.state.", "kafka.stream.processor.node.",
            "kafka.stream.topic.", "kafka.stream.record.cache.");
    /** Kafka consumer meters that are per partition when they carry a {@code partition} tag. */
    private static final String FETCH = "kafka.consumer.fetch.manager.";

    private VerboseKafkaMeters() {
    }

    /**
     * Whether the meter named {@code name} (Micrometer's dotted name) is one of the verbose ones.
     *
     * @param hasTag whether the meter carries a tag of that key
     */
    public static boolean verbose(String name, Predicate<String> hasTag) {
        for (String prefix : PER_ITEM) {
            if (name.startsWith(prefix)) {
                return true;
            }
        }
        return name.startsWith(FETCH) && hasTag.test("partition");
    }
}
