package io.promptcache.index.kafka;

import java.util.Map;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.kafka.InstanceId;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;
import io.smallrye.common.annotation.Identifier;

/**
 * The Kafka producers of this replica, all bounded by {@code promptcache.index.store.kafka-timeout}: one shared
 * idempotent producer for plain records (namespaces, access events) and transactional producers for stores and
 * tombstones. Values are serialized by the callers with event-schema's serdes (one producer type for every topic).
 */
@ApplicationScoped
public class KafkaProducers {

    private final Map<String, Object> kafka;
    private final String instanceId;
    private final TopicCatalog catalog;
    private final int timeoutMs;
    private final SharedProducer plain;

    KafkaProducers(IndexConfig config, @Identifier("default-kafka-broker") Map<String, Object> kafka,
            TopicCatalog catalog, @ConfigProperty(name = "quarkus.http.port", defaultValue = "8080") int httpPort) {
        this.kafka = kafka;
        this.instanceId = InstanceId.of(config.instanceId(), httpPort);
        this.catalog = catalog;
        this.timeoutMs = (int) config.store().kafkaTimeout().toMillis();
        this.plain = new SharedProducer(() -> new KafkaProducer<>(base(), new ByteArraySerializer(),
                new ByteArraySerializer()));
    }

    /** This replica's id (configured, or host name + HTTP port). */
    public String instanceId() {
        return instanceId;
    }

    public TopicCatalog catalog() {
        return catalog;
    }

    /** A record for {@code topic} (its full name from the catalog), key and value serialized with its serdes. */
    public <K, V> ProducerRecord<byte[], byte[]> record(TopicSpec<K, V> topic, K key, V value) {
        String name = catalog.name(topic);
        return new ProducerRecord<>(name, topic.keySerde().serializer().serialize(name, key),
                topic.valueSerde().serializer().serialize(name, value));
    }

    /** A new consumer with this service's Kafka settings ({@code kafka.*}) and {@code overrides}. */
    public KafkaConsumer<byte[], byte[]> consumer(Map<String, Object> overrides) {
        Map<String, Object> config = ClientSettings.consumer(kafka);
        config.putAll(overrides);
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The shared non-transactional producer (its Kafka client created on first use, and made again when one breaks:
     * {@link SharedProducer}). Not to be closed by its users.
     */
    public SharedProducer plain() {
        return plain;
    }

    /** A new transactional producer for slot {@code slot} of this replica (not yet initialized). */
    public KafkaProducer<byte[], byte[]> transactional(int slot) {
        Map<String, Object> config = base();
        config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "promptcache-index-" + instanceId + "-" + slot);
        config.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Math.max(10_000, 2 * timeoutMs));
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private Map<String, Object> base() {
        Map<String, Object> config = ClientSettings.producer(kafka);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeoutMs);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMs);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeoutMs + 1);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        config.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Topics.MAX_RECORD_BYTES);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, "promptcache-index-" + instanceId);
        return config;
    }

    @PreDestroy
    void close() {
        plain.close(java.time.Duration.ofSeconds(2));
    }
}
