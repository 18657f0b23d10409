package io.promptcache.index.streams;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

import jakarta.inject.Inject;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.index.lookup.LongestPrefixSearch;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The global stores on the real broker: records produced in one transaction become visible to the lookup of this
 * replica; a tombstone hides the object; a poison record goes to dead-letters and the stores keep updating.
 */
@QuarkusTest
class PrefixMapTest {

    private static final TopicCatalog CATALOG = TopicCatalog.defaults();

    @Inject
    ReplicaStores index;

    private final LongestPrefixSearch search = new LongestPrefixSearch((key, blocks, entry) -> {
    });

    @BeforeEach
    void ready() {
        ServiceHealthContract.awaitReady();
    }

    private static String bootstrap() {
        return ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
    }

    private static PrefixChain chain(int blocks, long seed) {
        int[] tokens = new int[blocks * 16];
        Random r = new Random(seed);
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = r.nextInt(32_000);
        }
        byte[] ns = new byte[16];
        new Random(seed).nextBytes(ns);
        return PrefixChain.ofTokens(NamespaceId.ofBytes(ns), HashAlgorithm.SHA256, 16, tokens);
    }

    /** One store as index-service will publish it: the object record and every covered prefix, in one transaction. */
    private static void publishStore(ObjectId id, PrefixChain chain, int blocks, ObjectState state) {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "prefix-map-test-" + UUID.randomUUID());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                    .setState(state).setNamespaceId(chain.namespace().toString()).setBlocks(blocks);
            if (state == ObjectState.OBJECT_STATE_TOMBSTONED) {
                record.setTombstone(
                        Tombstone.newBuilder().setEpoch(1).setReason(TombstoneReason.TOMBSTONE_REASON_INVALIDATED)
                                .setDeleteAfterMs(System.currentTimeMillis() + 60_000));
            }
            producer.send(new ProducerRecord<>(CATALOG.name(Topics.OBJECTS), id.toBytes(),
                    record.build().toByteArray()));
            if (state == ObjectState.OBJECT_STATE_LIVE) {
                for (int i = 1; i <= blocks; i++) {
                    PrefixEntry entry = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                            .setObjectId(id.toString()).setBlocks(i).setUsableBytes(i * 4096L).build();
                    producer.send(new ProducerRecord<>(CATALOG.name(Topics.PREFIXES), chain.key(i).toBytes(),
                            entry.toByteArray()));
                }
            }
            producer.commitTransaction();
        }
    }

    @Test
    void shouldServeACommittedStoreAndStopServingItsTombstonedObject() {
        PrefixChain chain = chain(24, 1);
        ObjectId id = ObjectId.generate();
        assertThat(search.search(chain, index).hit()).isFalse();
        publishStore(id, chain, 20, ObjectState.OBJECT_STATE_LIVE);
        await().atMost(Duration.ofSeconds(30)).until(() -> search.search(chain, index).blocks() == 20);
        assertThat(search.search(chain, index).entry().getUsableBytes()).isEqualTo(20 * 4096L);
        publishStore(id, chain, 20, ObjectState.OBJECT_STATE_TOMBSTONED);
        await().atMost(Duration.ofSeconds(30)).until(() -> !search.search(chain, index).hit());
    }

    @Test
    void shouldDeadLetterAPoisonRecordAndKeepUpdating() {
        PrefixChain chain = chain(8, 2);
        String deadLetters = CATALOG.name(Topics.DEAD_LETTERS);
        Map<String, Object> consumerConfig = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "dl-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        byte[] poisonKey = chain.key(1).toBytes();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig,
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()), new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            consumer.subscribe(List.of(deadLetters));
            producer.send(new ProducerRecord<>(CATALOG.name(Topics.PREFIXES), poisonKey,
                    new byte[]{(byte) 0xff, 0x13, 0x37}));
            producer.flush();
            boolean[] seen = {false};
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> {
                    if (java.util.Arrays.equals(r.key(), poisonKey)) {
                        seen[0] = true;
                    }
                });
                return seen[0];
            });
        }
        ObjectId id = ObjectId.generate();
        publishStore(id, chain, 8, ObjectState.OBJECT_STATE_LIVE);
        await().atMost(Duration.ofSeconds(30)).until(() -> search.search(chain, index).blocks() == 8);
    }
}
