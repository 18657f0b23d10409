package io.promptcache.devservices;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.junit.EmbeddedKafkaExtension;
import io.promptcache.schema.topic.TopicCatalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void shouldServeOnlyClientsWithTlsAndTheRightPasswordOnItsSecureListener(@TempDir Path dir) throws Exception {
        // Given: a broker whose clients' port requires TLS and SASL/PLAIN
        SaslSsl security = SaslSsl.selfSigned(dir.resolve("tls"), "promptcache", "s3cret");
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withCatalog(new TopicCatalog("secure.")).withPartitions(1).withSaslSsl(security))) {
            String topic = "secure.nodes";

            // When: a client with the right settings writes; one with a wrong password and one without TLS try
            Map<String, Object> good = new HashMap<>(security.clientSettings());
            good.put("bootstrap.servers", broker.bootstrapServers());
            try (var producer = new KafkaProducer<String, String>(good, new StringSerializer(),
                    new StringSerializer())) {
                producer.send(new ProducerRecord<>(topic, "k", "over TLS")).get();
            }
            Map<String, Object> wrong = new HashMap<>(security.clientSettings("guess"));
            wrong.put("bootstrap.servers", broker.bootstrapServers());
            wrong.put("max.block.ms", 10_000);
            Map<String, Object> plain = Map.of("bootstrap.servers", broker.bootstrapServers(), "max.block.ms", 5_000);

            // Then: the first is read back (through the broker's own client settings); the others are refused
            assertThat(values(broker, topic, 1)).containsExactly("over TLS");
            try (var producer = new KafkaProducer<String, String>(wrong, new StringSerializer(),
                    new StringSerializer())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", "no")).get())
                        .hasRootCauseInstanceOf(SaslAuthenticationException.class);
            }
            try (var producer = new KafkaProducer<String, String>(plain, new StringSerializer(),
                    new StringSerializer())) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(topic, "k", "no")).get())
                        .as("a client without TLS gets no metadata")
                        .hasRootCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
            }
        }
    }

    /** The values of partition 0 of {@code topic} from its start, polled until {@code expected} or 20 s. */
    private static List<String> values(EmbeddedKafkaBroker broker, String topic, int expected) {
        Map<String, Object> config = new HashMap<>();
        broker.clientProperties().forEach((k, v) -> config.put(k.toString(), v));
        try (var consumer = new KafkaConsumer<String, String>(config, new StringDeserializer(),
                new StringDeserializer())) {
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
