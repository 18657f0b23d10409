package io.promptcache.bridge;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.IntStream;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.SaslSsl;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bridge end to end on real sockets: a ZMQ PUB on 127.0.0.1 plays vLLM's publisher with recorded frames
 * ([topic, seq, payload]); the bridge produces to a real in-JVM broker; the events are read back from
 * {@code engine-events}, keyed by the backend, in order. A garbage frame and a sequence gap are counted, not fatal.
 */
class ZmqBridgeTest {

    @TempDir
    Path dir;

    @Test
    void shouldRelayVllmFramesToEngineEventsInOrder() throws Exception {
        relay(EmbeddedKafkaBroker.Options.defaults(), null);
    }

    @Test
    void shouldRelayToABrokerThatRequiresTlsAndSaslWithItsKafkaConfigFile() throws Exception {
        // Given: a broker whose clients' port requires TLS and SASL/PLAIN, and the settings as a client file
        SaslSsl security = SaslSsl.selfSigned(dir.resolve("tls"), "bridge", "s3cret");
        Properties file = new Properties();
        file.putAll(security.clientSettings());
        Path config = dir.resolve("client.properties");
        try (var out = Files.newBufferedWriter(config)) {
            file.store(out, null);
        }

        // When / Then: the bridge's producer, configured as with --kafka-config, relays as over a plain listener
        relay(EmbeddedKafkaBroker.Options.defaults().withSaslSsl(security), config);
    }

    private void relay(EmbeddedKafkaBroker.Options options, Path kafkaConfig) throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(options);
                ZContext context = new ZContext()) {
            ZMQ.Socket pub = context.createSocket(SocketType.PUB);
            int port = pub.bindToRandomPort("tcp://127.0.0.1");
            BridgeSettings settings = new BridgeSettings("engine-a", "llama-3-8b", 4, "", Optional.empty(),
                    Optional.empty());
            ZmqBridge bridge = new ZmqBridge("tcp://127.0.0.1:" + port, "kv-events", settings,
                    new KafkaProducer<>(BridgeMain.producerConfig(kafkaConfig == null
                            ? Map.of("bootstrap", broker.bootstrapServers())
                            : Map.of("bootstrap", broker.bootstrapServers(), "kafka-config", kafkaConfig.toString())),
                            new ByteArraySerializer(), new ByteArraySerializer()),
                    TopicCatalog.defaults());
            Thread worker = new Thread(bridge);
            worker.start();
            try {
                // a PUB drops messages until the SUB is connected: send a probe until one gets through
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (bridge.batches() == 0 && System.nanoTime() < deadline) {
                    send(pub, 0, VllmFrame.batch().cleared().encode(1.0, null));
                    Thread.sleep(100);
                }
                long probes = bridge.batches();
                assertThat(probes).as("probe batches relayed in 60 s (none: the SUB never connected, or the "
                        + "producer's first send waited for metadata; bridge thread %s)", worker.getState())
                        .isPositive();
                send(pub, 1, VllmFrame.batch().stored(List.of(11L, 12L), null, IntStream.range(0, 8).toArray(), 4,
                        null, "GPU").encode(2.0, null));
                send(pub, 2, "not msgpack".getBytes(StandardCharsets.UTF_8));
                send(pub, 4, VllmFrame.batch().removed(List.of(12L), "GPU").encode(3.0, null));
                deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (bridge.batches() < probes + 2 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
            } finally {
                bridge.close();
                worker.join(15_000);
            }

            // Then: the stored and removed events, in order, after the probe clears
            List<EngineEvent> events = read(broker);
            assertThat(events).extracting(EngineEvent::getKindCase).endsWith(EngineEvent.KindCase.STORED,
                    EngineEvent.KindCase.REMOVED);
            EngineEvent stored = events.get(events.size() - 2);
            assertThat(stored.getEventId()).isEqualTo(65536);
            assertThat(stored.getStored().getTokenIdsCount()).isEqualTo(8);
            assertThat(events.get(events.size() - 1).getEventId()).isEqualTo(4 * 65536);
            assertThat(bridge.unreadable()).isEqualTo(1);
            assertThat(bridge.gaps()).as("seq 3 never came").isEqualTo(1);
        }
    }

    private static void send(ZMQ.Socket pub, long seq, byte[] payload) {
        pub.sendMore("kv-events");
        pub.sendMore(ByteBuffer.allocate(8).putLong(seq).array());
        pub.send(payload);
    }

    private static List<EngineEvent> read(EmbeddedKafkaBroker broker) {
        String topic = TopicCatalog.defaults().name(Topics.ENGINE_EVENTS);
        List<EngineEvent> out = new ArrayList<>();
        Map<String, Object> config = new HashMap<>();
        broker.clientProperties().forEach((k, v) -> config.put(k.toString(), v));
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        // assigned, not subscribed: no group coordinator to wait for on a fresh broker
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (out.stream().noneMatch(EngineEvent::hasRemoved) && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("engine-a");
                    out.add(Topics.ENGINE_EVENTS.valueSerde().deserializer().deserialize(topic, r.value()));
                }
            }
        }
        return out;
    }
}
