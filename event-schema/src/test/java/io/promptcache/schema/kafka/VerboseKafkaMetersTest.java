package io.promptcache.schema.kafka;

import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class VerboseKafkaMetersTest {

    @Test
    void shouldDenyPerStorePerNodePerTopicAndPerPartitionMetersOnly() {
        assertThat(VerboseKafkaMeters.verbose("kafka.stream.state.put.rate", Set.of()::contains)).isTrue();
        assertThat(VerboseKafkaMeters.verbose("kafka.stream.processor.node.process.rate", Set.of()::contains))
                .isTrue();
        assertThat(VerboseKafkaMeters.verbose("kafka.stream.topic.bytes.consumed.total", Set.of()::contains))
                .isTrue();
        assertThat(VerboseKafkaMeters.verbose("kafka.consumer.fetch.manager.records.lag",
                Set.of("partition", "topic")::contains)).isTrue();

        assertThat(VerboseKafkaMeters.verbose("kafka.consumer.fetch.manager.records.lag.max", Set.of()::contains))
                .as("the consumer's own, not per partition").isFalse();
        assertThat(VerboseKafkaMeters.verbose("kafka.stream.thread.process.rate", Set.of()::contains)).isFalse();
        assertThat(VerboseKafkaMeters.verbose("kafka.stream.task.process.rate", Set.of()::contains)).isFalse();
        assertThat(VerboseKafkaMeters.verbose("promptcache.gc.bytes", Set.of()::contains)).isFalse();
    }
}
