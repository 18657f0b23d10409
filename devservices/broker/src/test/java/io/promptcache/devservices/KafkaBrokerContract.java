package io.promptcache.devservices;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What promptcache relies on from a Kafka broker, run against the embedded broker (always) and against a Kafka
 * container (opt-in profile).
 */
abstract class KafkaBrokerContract {

    /** Bootstrap servers of a broker on which the default catalog's topics exist. */
    protected abstract String bootstrapServers();

    @Test
    void shouldCreateEveryCatalogTopicWithItsCleanupPolicy() throws Exception {
        // Given
        TopicCatalog catalog = TopicCatalog.defaults();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            // When
            List<ConfigResource> resources = Topics.ALL.stream()
                    .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, catalog.name(t))).toList();
            Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
            // Then
            for (var topic : Topics.ALL) {
                Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, catalog.name(topic)));
                assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).as(catalog.name(topic))
                        .isEqualTo(topic.configs().get(TopicConfig.CLEANUP_POLICY_CONFIG));
            }
        }
    }

    @Test
    void shouldCompactACompactedTopic() throws Exception {
        // Given: the prefixes topic's compaction settings, with segments rolling every 100 ms
        String topic = "compaction-" + UUID.randomUUID();
        Map<String, String> configs = new HashMap<>(Topics.PREFIXES.configs());
        configs.put(TopicConfig.SEGMENT_MS_CONFIG, "100");
        configs.put(TopicConfig.MIN_CLEANABLE_DIRTY_RATIO_CONFIG, "0.01");
        createTopic(new NewTopic(topic, 1, (short) 1).configs(configs));
        // When: 5 keys overwritten 40 times each, in several segments
        try (KafkaProducer<String, String> producer = producer(Map.of())) {
            for (int round = 0; round < 40; round++) {
                for (int key = 0; key < 5; key++) {
                    producer.send(new ProducerRecord<>(topic, "key-" + key, "round-" + round));
                }
                producer.flush();
            }
        }
        // Then: the cleaner removes overwritten records; keep appending so the active segment rolls
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            try (KafkaProducer<String, String> producer = producer(Map.of())) {
                producer.send(new ProducerRecord<>(topic, "roller", "x")).get();
            }
            List<ConsumerRecord<String, String>> records = readAll(topic, "read_uncommitted");
            assertThat(records.size()).isLessThan(200);
        });
        Map<String, String> latest = new HashMap<>();
        readAll(topic, "read_uncommitted").forEach(r -> latest.put(r.key(), r.value()));
        for (int key = 0; key < 5; key++) {
            assertThat(latest).containsEntry("key-" + key, "round-39");
        }
    }

    @Test
    void shouldHideAnAbortedTransactionFromReadCommittedConsumers() throws Exception {
        // Given
        String topic = "transactions-" + UUID.randomUUID();
        createTopic(new NewTopic(topic, 1, (short) 1));
        try (KafkaProducer<String, String> producer = producer(
                Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tx-" + UUID.randomUUID()))) {
            producer.initTransactions();
            // When: one transaction aborted, one committed
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "aborted")).get();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "k", "committed")).get();
            producer.commitTransaction();
        }
        // Then: the aborted record was written (read_uncommitted sees it) but read_committed never does
        assertThat(readAll(topic, "read_uncommitted")).extracting(ConsumerRecord::value)
                .containsExactly("aborted", "committed");
        assertThat(readAll(topic, "read_committed")).extracting(ConsumerRecord::value)
                .containsExactly("committed");
    }

    protected void createTopic(NewTopic topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrapServers()))) {
            admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        }
    }

    protected KafkaProducer<String, String> producer(Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(extra);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    /** Reads a topic from the beginning to its end offsets. */
    protected List<ConsumerRecord<String, String>> readAll(String topic, String isolation) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            var end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}
