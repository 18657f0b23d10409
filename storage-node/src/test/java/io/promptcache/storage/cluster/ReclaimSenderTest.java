package io.promptcache.storage.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.Reclaim;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.promptcache.storage.store.ReclaimLog;
import io.promptcache.storage.store.ReclaimLogs;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What a node deleted on its own reaches the real broker's reclaims topic once each, or waits for a later send. */
@QuarkusTest
class ReclaimSenderTest {

    private static final String TOPIC = TopicCatalog.defaults().name(Topics.RECLAIMS);

    @Test
    void shouldSendEachDeletionOnceOnTheReclaimsTopic() {
        // Given: a node (its own id, apart from the test node's) that deleted two objects
        NodeId node = new NodeId("reclaims-" + UUID.randomUUID());
        ReclaimLog log = new ReclaimLog();
        ReclaimLogs.add(log, "kv", "ns/a", 1_000);
        ReclaimLogs.add(log, "kv", "ns/b", 1_001);

        // When: sent, and sent again with nothing new
        try (ReclaimSender sender = new ReclaimSender(log, TOPIC, node, producerConfig(bootstrap(), 5_000))) {
            sender.send();
            sender.send();
        }

        // Then: one record each on the topic, keyed by the node
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "reclaims-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<Reclaim> mine = new ArrayList<>();
        try (KafkaConsumer<NodeId, Reclaim> consumer = new KafkaConsumer<>(config,
                Topics.RECLAIMS.keySerde().deserializer(), Topics.RECLAIMS.valueSerde().deserializer())) {
            consumer.subscribe(List.of(TOPIC));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                for (ConsumerRecord<NodeId, Reclaim> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key().equals(node)) {
                        mine.add(r.value());
                    }
                }
                assertThat(mine).hasSizeGreaterThanOrEqualTo(2);
            });
            consumer.poll(Duration.ofSeconds(1)).forEach(r -> {
                if (r.key().equals(node)) {
                    mine.add(r.value());
                }
            });
        }
        assertThat(mine).extracting(Reclaim::getKey).containsExactly("ns/a", "ns/b");
        assertThat(mine).allSatisfy(r -> {
            assertThat(r.getNodeId()).isEqualTo(node.value());
            assertThat(r.getBucket()).isEqualTo("kv");
        });
        assertThat(mine.get(1).getReclaimedAtMs()).isEqualTo(1_001);
    }

    @Test
    void shouldKeepWhatItCouldNotSendForALaterHeartbeat() {
        // Given: a broker nobody answers at, and 50 deletions queued
        ReclaimLog log = new ReclaimLog();
        for (int i = 0; i < 50; i++) {
            ReclaimLogs.add(log, "kv", "ns/" + i, 1_000 + i);
        }

        // When: the heartbeat thread sends
        long started = System.nanoTime();
        try (ReclaimSender sender = new ReclaimSender(log, TOPIC, new NodeId("away"),
                producerConfig("127.0.0.1:1", 300))) {
            sender.send();
        }
        long blockedMs = (System.nanoTime() - started) / 1_000_000;

        // Then: all wait in the queue, nothing dropped; and the thread waited for the broker's metadata once, not once
        // per deletion (50 x 300 ms = 15 s)
        assertThat(log.takeUnsent()).hasSize(50);
        assertThat(log.unreported()).isZero();
        assertThat(blockedMs).as("heartbeat thread blocked (ms)").isLessThan(7_500);
    }

    private static String bootstrap() {
        return ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
    }

    private static Map<String, Object> producerConfig(String bootstrap, int maxBlockMs) {
        Map<String, Object> config = new HashMap<>();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, maxBlockMs);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return config;
    }
}
