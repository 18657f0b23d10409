package io.promptcache.gc.testing;

import java.net.URI;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * What an index-service does to a real broker and a real storage node, for integration tests: PUT the bytes with the
 * AWS SDK, then publish the object record and its ADVERTISEs; plus reads of the topics' latest values.
 */
public final class ClusterClient implements AutoCloseable {

    private static final TopicCatalog CATALOG = TopicCatalog.defaults();

    private final String bootstrap;
    private final String nodeId;
    private final S3Client s3;
    private final KafkaProducer<byte[], byte[]> producer;

    public ClusterClient(String bootstrap, String nodeId, String endpoint) {
        this.bootstrap = bootstrap;
        this.nodeId = nodeId;
        this.s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create()).forcePathStyle(true).build();
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
        if (!s3.listBuckets().buckets().stream().anyMatch(b -> b.name().equals(Records.BUCKET))) {
            s3.createBucket(b -> b.bucket(Records.BUCKET));
        }
    }

    /** Stores an object of {@code bytes} advertised under {@code keys}; returns its id. */
    public ObjectId store(long bytes, long createdAt, int priority, PrefixKey... keys) {
        ObjectId id = ObjectId.generate();
        ObjectRecord record = Records.live(id, nodeId, bytes, createdAt).toBuilder().setPriority(priority).build();
        put(record.getKey(), bytes);
        send(Topics.OBJECTS, id, record);
        for (int i = 0; i < keys.length; i++) {
            send(Topics.PREFIXES, keys[i], PrefixEntry.newBuilder().setSchemaVersion(1).setObjectId(id.toString())
                    .setBlocks(i + 1).setUsableBytes(bytes).setVersion(createdAt).setOwnerId("t")
                    .setPriority(priority).setAdvertisedAtMs(createdAt).build());
        }
        producer.flush();
        return id;
    }

    /** PUTs {@code bytes} under {@code key} and nothing else (what a store that crashed before its commit leaves). */
    public void put(String key, long bytes) {
        s3.putObject(b -> b.bucket(Records.BUCKET).key(key), RequestBody.fromBytes(new byte[(int) bytes]));
    }

    /** A range GET of the first {@code length} bytes; empty if the object is gone (404). */
    public Optional<byte[]> rangeGet(String key, long length) {
        try {
            return Optional.of(s3.getObject(b -> b.bucket(Records.BUCKET).key(key).range("bytes=0-" + (length - 1)),
                    ResponseTransformer.toBytes()).asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    public <K, V> void send(TopicSpec<K, V> topic, K key, V value) {
        producer.send(new ProducerRecord<>(CATALOG.name(topic), topic.keySerde().serializer().serialize(null, key),
                value == null ? null : topic.valueSerde().serializer().serialize(null, value)));
        producer.flush();
    }

    /** Raw bytes to a topic (a poison record). */
    public void sendRaw(TopicSpec<?, ?> topic, byte[] key, byte[] value) {
        producer.send(new ProducerRecord<>(CATALOG.name(topic), key, value));
        producer.flush();
    }

    /** Every committed record of {@code topic} from the beginning, in offset order per partition. */
    public <K, V> List<Map.Entry<K, V>> history(TopicSpec<K, V> topic) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "gc-test-" + UUID.randomUUID());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(CATALOG.name(topic)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            List<Map.Entry<K, V>> records = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    K key = tryDecode(() -> topic.keySerde().deserializer().deserialize(null, r.key()));
                    if (key == null) {
                        continue; // a poison record of a test
                    }
                    V value = r.value() == null
                            ? null
                            : tryDecode(() -> topic.valueSerde().deserializer().deserialize(null,
                                    r.value()));
                    records.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
                }
            }
            return records;
        }
    }

    /** The latest value per key of a compacted topic (what a fully compacted log would hold; null = removed). */
    public <K, V> Map<K, V> latest(TopicSpec<K, V> topic) {
        Map<K, V> latest = new HashMap<>();
        history(topic).forEach(e -> latest.put(e.getKey(), e.getValue()));
        return latest;
    }

    private static <T> T tryDecode(Supplier<T> decode) {
        try {
            return decode.get();
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        s3.close();
    }
}
