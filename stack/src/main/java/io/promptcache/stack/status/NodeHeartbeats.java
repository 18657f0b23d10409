package io.promptcache.stack.status;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/** The latest heartbeat of every storage node, read from the compacted {@code nodes} topic. */
final class NodeHeartbeats {

    private NodeHeartbeats() {
    }

    static Map<String, NodeStatus> read(String bootstrap) {
        String topic = TopicCatalog.defaults().name(Topics.NODES);
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<String, NodeStatus> latest = new TreeMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() == null) {
                        continue;
                    }
                    try {
                        NodeStatus status = Topics.NODES.valueSerde().deserializer().deserialize(topic, r.value());
                        latest.put(status.getNodeId(), status);
                    } catch (RuntimeException unreadable) {
                        // a poison heartbeat is the services' problem (dead-letters), not the status view's
                    }
                }
            }
        }
        return latest;
    }
}
