package io.promptcache.storage.cluster;

import java.net.URL;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The node's heartbeats arrive on the real broker's nodes topic and follow what the node stores. */
@QuarkusTest
class NodeHeartbeatTest {

    @TestHTTPResource("/")
    URL endpoint;

    @Test
    void shouldPublishItsStatusAndUsedBytes() throws Exception {
        // Given: a consumer of the nodes topic
        String topic = TopicCatalog.defaults().name(Topics.NODES);
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class),
                ConsumerConfig.GROUP_ID_CONFIG, "heartbeat-test-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<NodeId, NodeStatus> consumer = new KafkaConsumer<>(config,
                Topics.NODES.keySerde().deserializer(), Topics.NODES.valueSerde().deserializer())) {
            consumer.subscribe(List.of(topic));
            // When: the node stores 1000 bytes
            String bucket = "hb-" + UUID.randomUUID();
            io.promptcache.storage.s3.TestRequests.put(endpoint, bucket, "k", new byte[1000]);
            // Then: a later heartbeat says so, with the node's endpoint and capacity
            NodeStatus[] latest = new NodeStatus[1];
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> latest[0] = r.value());
                assertThat(latest[0]).isNotNull();
                assertThat(latest[0].getUsedBytes()).isGreaterThanOrEqualTo(1000);
            });
            assertThat(latest[0].getNodeId()).isEqualTo("storage-node-1");
            assertThat(latest[0].getState()).isEqualTo(NodeState.NODE_STATE_UP);
            assertThat(latest[0].getEndpoint()).isEqualTo("http://127.0.0.1:" + endpoint.getPort());
            assertThat(latest[0].getCapacityBytes()).isEqualTo(1L << 30);
            assertThat(latest[0].getObjects()).isGreaterThanOrEqualTo(1);
            assertThat(latest[0].getRamCapacityBytes()).as("tier stats").isEqualTo(512L << 20);
            assertThat(latest[0].getRamHitRatio()).isBetween(0.0, 1.0);
        }
    }
}
