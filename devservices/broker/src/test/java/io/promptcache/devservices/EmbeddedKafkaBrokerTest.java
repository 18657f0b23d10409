package io.promptcache.devservices;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.junit.EmbeddedKafkaExtension;
import io.promptcache.schema.topic.TopicCatalog;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(EmbeddedKafkaExtension.class)
class EmbeddedKafkaBrokerTest extends KafkaBrokerContract {

    private final EmbeddedKafkaBroker broker;

    EmbeddedKafkaBrokerTest(EmbeddedKafkaBroker broker) {
        this.broker = broker;
    }

    @Override
    protected String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Test
    void shouldServeOnLoopback() {
        assertThat(broker.bootstrapServers()).matches("(localhost|127\\.0\\.0\\.1):\\d+");
    }

    @Test
    void shouldKeepAChosenDataDirectoryAndDeleteATemporaryOne(@TempDir Path dir) {
        // Given: a second broker with its own catalog prefix and a kept data directory
        Path data = dir.resolve("kafka");
        EmbeddedKafkaBroker kept = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withDataDirectory(data).withCatalog(new TopicCatalog("other.")).withPartitions(1));
        // When
        kept.close();
        kept.close();
        // Then
        assertThat(data).isDirectory();
        assertThat(Files.exists(data.resolve("combined_0_0")) || data.toFile().list().length > 0).isTrue();
    }

    @Test
    void shouldResumeAKeptDataDirectoryWithItsRecords(@TempDir Path dir) throws Exception {
        // Given: a broker on a kept directory that took one record, then stopped
        Path data = dir.resolve("kafka");
        EmbeddedKafkaBroker.Options options = EmbeddedKafkaBroker.Options.defaults().withDataDirectory(data)
                .withCatalog(new TopicCatalog("resume.")).withPartitions(1);
        String topic = "resume.nodes";
        try (EmbeddedKafkaBroker first = EmbeddedKafkaBroker.start(options);
                var producer = new KafkaProducer<String, String>(
                        Map.of("bootstrap.servers", first.bootstrapServers()),
                        new StringSerializer(),
                        new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "kept")).get();
        }

        // When: started again on the same directory (a formatted one: no second format)
        try (EmbeddedKafkaBroker second = EmbeddedKafkaBroker.start(options)) {
            // Then: the record is still there
            assertThat(values(second, topic, 1)).containsExactly("kept");
        }
    }

    @Test
    void shouldComeBackOnItsPinnedPortToClientsConnectedBefore(@TempDir Path dir) throws Exception {
        // Given: a broker on a pinned port and a kept directory, and a producer that wrote through it
        int port;
        try (var socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        EmbeddedKafkaBroker.Options options = EmbeddedKafkaBroker.Options.defaults().withDataDirectory(
                dir.resolve("kafka")).withCatalog(new TopicCatalog("pinned.")).withPartitions(1).withPort(port);
        String topic = "pinned.nodes";
        EmbeddedKafkaBroker first = EmbeddedKafkaBroker.start(options);
        assertThat(first.bootstrapServers()).isEqualTo("127.0.0.1:" + port);
        try (var producer = new KafkaProducer<String, String>(Map.of("bootstrap.servers", first.bootstrapServers(),
                "delivery.timeout.ms", 60_000, "request.timeout.ms", 5_000), new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "k", "before")).get();

            // When: the broker stops and starts again on the same port and directory
            first.close();
            try (EmbeddedKafkaBroker second = EmbeddedKafkaBroker.start(options)) {
                // Then: the producer connected before writes again, and both records are there
                producer.send(new ProducerRecord<>(topic, "k", "after")).get();
                assertThat(second.bootstrapServers()).isEqualTo("127.0.0.1:" + port);
                assertThat(values(second, topic, 2)).containsExactly("before", "after");
            }
        }
    }

    /** The values of partition 0 of {@code topic} from its start, polled until {@code expected} or 20 s. */
    private static List<String> values(EmbeddedKafkaBroker broker, String topic, int expected) {
        try (var consumer = new KafkaConsumer<String, String>(Map.of("bootstrap.servers", broker.bootstrapServers()),
                new StringDeserializer(), new StringDeserializer())) {
            var partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            var records = new ArrayList<String>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> records.add(r.value()));
            }
            return records;
        }
    }
}
