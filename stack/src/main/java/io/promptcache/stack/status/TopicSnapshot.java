package io.promptcache.stack.status;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;

/**
 * The latest value of every key of a compacted topic, read from its beginning to the end offsets of the moment
 * ({@code read_committed}: what the services see). A key whose latest record is a Kafka null maps to null; a record
 * that cannot be read is skipped (it is the services' problem: dead-letters).
 */
public final class TopicSnapshot {

    private static final Duration READ_WITHIN = Duration.ofSeconds(20);

    private TopicSnapshot() {
    }

    /** The latest value per key of {@code topic} at {@code bootstrap} (default catalog prefix). */
    public static <K, V> Map<K, V> latest(String bootstrap, TopicSpec<K, V> topic) {
        return latest(bootstrap, Map.of(), topic);
    }

    /** The same, with Kafka client settings (TLS, SASL: {@code ClientSettings.load}). */
    public static <K, V> Map<K, V> latest(String bootstrap, Map<String, String> settings, TopicSpec<K, V> topic) {
        String name = TopicCatalog.defaults().name(topic);
        Map<String, Object> config = ClientSettings.consumer(settings);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        Map<K, V> latest = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(name, Duration.ofSeconds(10)).stream()
                    .map(p -> new TopicPartition(name, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + READ_WITHIN.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    try {
                        K key = topic.keySerde().deserializer().deserialize(name, r.key());
                        latest.put(key, r.value() == null
                                ? null
                                : topic.valueSerde().deserializer().deserialize(name, r.value()));
                    } catch (RuntimeException unreadable) {
                        // skipped: see the class comment
                    }
                }
            }
        }
        return latest;
    }
}
