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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
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
        // No "Expect: 100-continue": with it, some PUTs of the JDK's HttpURLConnection (the SDK's url-connection
        // client) to a nearly full node waited 30 s (the read timeout) for the response head (docs/benchmarks.md,
        // gc-processor), which stalled the benchmark's store loop.
        this.s3 = S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create()).forcePathStyle(true)
                .overrideConfiguration(o -> o.addExecutionInterceptor(new NoExpectContinue())).build();
        // records up to 2 MiB leave here: the broker, not this client, decides what a topic takes
        this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2 << 20),
                new ByteArraySerializer(), new ByteArraySerializer());
        if (!s3.listBuckets().buckets().stream().anyMatch(b -> b.name().equals(Records.BUCKET))) {
            s3.createBucket(b -> b.bucket(Records.BUCKET));
        }
    }

    /** Drops the {@code Expect} header the SDK puts on PutObject. */
    private static final class NoExpectContinue implements ExecutionInterceptor {

        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context,
                ExecutionAttributes executionAttributes) {
            return context.httpRequest().toBuilder().removeHeader("Expect").build();
        }
    }

    /** Stores an object of {@code bytes} advertised under {@code keys}; returns its id. */
    public ObjectId store(long bytes, long createdAt, int priority, PrefixKey... keys) {
        ObjectRecord record = upload(bytes, createdAt, priority);
        register(record, keys);
        return Records.idOf(record);
    }

    /** PUTs the bytes of a new object, not yet registered; returns the record to register. */
    public ObjectRecord upload(long bytes, long createdAt, int priority) {
        ObjectId id = ObjectId.generate();
        ObjectRecord record = Records.live(id, nodeId, bytes, createdAt).toBuilder().setPriority(priority).build();
        put(record.getKey(), bytes);
        return record;
    }

    /** Publishes an uploaded object's record and its ADVERTISEs (what a store's transaction carries). */
    public void register(ObjectRecord record, PrefixKey... keys) {
        ObjectId id = Records.idOf(record);
        send(Topics.OBJECTS, id, record);
        for (int i = 0; i < keys.length; i++) {
            send(Topics.PREFIXES, keys[i], PrefixEntry.newBuilder().setSchemaVersion(1).setObjectId(id.toString())
                    .setBlocks(i + 1).setUsableBytes(record.getTotalBytes()).setVersion(record.getCreatedAtMs())
                    .setOwnerId("t").setPriority(record.getPriority()).setAdvertisedAtMs(record.getCreatedAtMs())
                    .build());
        }
        producer.flush();
    }

    /** PUTs {@code body} as a new object, not yet registered; returns the record to register. */
    public ObjectRecord upload(byte[] body, long createdAt) {
        ObjectRecord record = Records.live(ObjectId.generate(), nodeId, body.length, createdAt);
        s3.putObject(b -> b.bucket(Records.BUCKET).key(record.getKey()), RequestBody.fromBytes(body));
        return record;
    }

    /**
     * Stores a continuation of {@code parent} as index-service does (UploadPartCopy of its first {@code shared}
     * bytes, then {@code fresh}), not yet registered; returns the record (parent, shared bytes and pieces set).
     */
    public ObjectRecord uploadContinuation(ObjectRecord parent, long shared, byte[] fresh, long createdAt) {
        ObjectRecord record = Records.live(ObjectId.generate(), nodeId, shared + fresh.length, createdAt).toBuilder()
                .setParentObjectId(Records.idOf(parent).toString()).setSharedBytes(shared)
                .addAllShared(SharedBytes.continuing(Records.idOf(parent).toString(), parent, shared)).build();
        String key = record.getKey();
        String upload = s3.createMultipartUpload(b -> b.bucket(Records.BUCKET).key(key)).uploadId();
        String copied = s3.uploadPartCopy(b -> b.sourceBucket(Records.BUCKET).sourceKey(parent.getKey())
                .destinationBucket(Records.BUCKET).destinationKey(key).uploadId(upload).partNumber(1)
                .copySourceRange("bytes=0-" + (shared - 1))).copyPartResult().eTag();
        String written = s3.uploadPart(b -> b.bucket(Records.BUCKET).key(key).uploadId(upload).partNumber(2),
                RequestBody.fromBytes(fresh)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(Records.BUCKET).key(key).uploadId(upload).multipartUpload(m -> m
                .parts(CompletedPart.builder().partNumber(1).eTag(copied).build(),
                        CompletedPart.builder().partNumber(2).eTag(written).build())));
        return record;
    }

    /** The whole object; empty if it is gone (404). */
    public Optional<byte[]> get(String key) {
        try {
            return Optional.of(s3.getObject(b -> b.bucket(Records.BUCKET).key(key), ResponseTransformer.toBytes())
                    .asByteArray());
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
    }

    /** PUTs {@code bytes} under {@code key} and nothing else (what a store that crashed before its commit leaves). */
    public void put(String key, long bytes) {
        s3.putObject(b -> b.bucket(Records.BUCKET).key(key), RequestBody.fromBytes(new byte[(int) bytes]));
    }

    /** DELETEs {@code key} (an operator's hand). */
    public void delete(String key) {
        s3.deleteObject(b -> b.bucket(Records.BUCKET).key(key));
    }

    /** The keys under {@code prefix} (one listing page: up to 1,000). */
    public List<String> keys(String prefix) {
        return s3.listObjectsV2(b -> b.bucket(Records.BUCKET).prefix(prefix)).contents().stream()
                .map(o -> o.key()).toList();
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

    /** Every record of {@code records} to {@code topic} in order, flushed once at the end (a backlog). */
    public <K, V> void sendAll(TopicSpec<K, V> topic, List<Map.Entry<K, V>> records) {
        for (Map.Entry<K, V> record : records) {
            producer.send(new ProducerRecord<>(CATALOG.name(topic), topic.keySerde().serializer().serialize(null,
                    record.getKey()),
                    record.getValue() == null
                            ? null
                            : topic.valueSerde().serializer().serialize(null, record.getValue())));
        }
        producer.flush();
    }

    /** Raw bytes to a topic (a poison record). */
    /** Whether the broker took {@code value} under {@code key} into {@code topic} (false: it refused it). */
    public boolean accepted(TopicSpec<?, ?> topic, byte[] key, byte[] value) {
        try {
            producer.send(new ProducerRecord<>(CATALOG.name(topic), key, value)).get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException(e);
        }
    }

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

    /**
     * Makes the broker's cleaner compact {@code topic} soon: segments roll every 100 ms, any dirty ratio is enough,
     * and nulls are dropped 100 ms after a cleaning keeps them. {@link #restoreCompaction} undoes it.
     */
    public void compactEagerly(TopicSpec<?, ?> topic) {
        alter(topic, Map.of(TopicConfig.SEGMENT_MS_CONFIG, "100", TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01",
                TopicConfig.DELETE_RETENTION_MS_CONFIG, "100"));
    }

    /** Puts back the catalog's compaction settings of {@code topic}. */
    public void restoreCompaction(TopicSpec<?, ?> topic) {
        Map<String, String> configs = new HashMap<>();
        for (String name : List.of(TopicConfig.SEGMENT_MS_CONFIG, TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG,
                TopicConfig.DELETE_RETENTION_MS_CONFIG)) {
            configs.put(name, topic.configs().get(name));
        }
        alter(topic, configs);
    }

    /**
     * Appends a null under a fresh key to every partition of {@code topic}, so each active segment older than
     * {@code segment.ms} rolls and the cleaner can reach every record before it.
     */
    public void rollSegments(TopicSpec<?, ?> topic) {
        String name = CATALOG.name(topic);
        for (int partition = 0; partition < producer.partitionsFor(name).size(); partition++) {
            producer.send(new ProducerRecord<>(name, partition, ObjectId.generate().toBytes(), null));
        }
        producer.flush();
    }

    private void alter(TopicSpec<?, ?> topic, Map<String, String> configs) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, CATALOG.name(topic));
        List<AlterConfigOp> ops = configs.entrySet().stream()
                .map(c -> new AlterConfigOp(new ConfigEntry(c.getKey(), c.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.incrementalAlterConfigs(Map.of(resource, ops)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not alter the configs of " + resource.name(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
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
