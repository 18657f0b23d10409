package io.promptcache.gc.budget;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.EmbeddedKafkaBroker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link KafkaBookProgress} on a real broker: the proof holds only once the group's committed offsets reach the end
 * of {@code objects} and then of the keeper's input topic; a partition with records and no committed offset lags; an
 * empty one does not; a topic that does not exist proves nothing.
 */
class KafkaBookProgressTest {

    private static final String GROUP = "book-progress-test";
    private static final String OBJECTS = "book.objects";
    private static final String BUDGET = KafkaBookProgress.budgetTopic(GROUP, "budget");

    private static EmbeddedKafkaBroker broker;
    private static Admin admin;

    @BeforeAll
    static void start() throws Exception {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
        admin.createTopics(List.of(new NewTopic(OBJECTS, 3, (short) 1), new NewTopic(BUDGET, 1, (short) 1)))
                .all().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void shouldProveTheBookCaughtUpOnlyOnceBothTopicsAreCommittedToTheirEnds() throws Exception {
        // Given: records on partitions 0 and 1 of objects (2 stays empty) and on the budget topic; nothing committed
        send(OBJECTS, 0, 5);
        send(OBJECTS, 1, 3);
        send(BUDGET, 0, 4);
        try (KafkaBookProgress progress = new KafkaBookProgress(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()), GROUP, OBJECTS, BUDGET, Duration.ofMillis(600))) {

            // When / Then: the ledgers have read nothing
            BookProgress.Proof none = progress.prove().get(30, TimeUnit.SECONDS);
            assertThat(none.caughtUp()).as(none.detail()).isFalse();
            assertThat(none.detail()).contains("behind " + OBJECTS).contains("0 at none of 5")
                    .contains("1 at none of 3").doesNotContain("2 at");

            // When / Then: one partition of objects read to its end, the other not
            commit(Map.of(new TopicPartition(OBJECTS, 0), 5L, new TopicPartition(OBJECTS, 1), 2L));
            BookProgress.Proof partly = progress.prove().get(30, TimeUnit.SECONDS);
            assertThat(partly.caughtUp()).as(partly.detail()).isFalse();
            assertThat(partly.detail()).contains("behind " + OBJECTS).contains("1 at 2 of 3");

            // When / Then: objects read to its end, the keeper behind on its input
            commit(Map.of(new TopicPartition(OBJECTS, 1), 3L));
            BookProgress.Proof keeperBehind = progress.prove().get(30, TimeUnit.SECONDS);
            assertThat(keeperBehind.caughtUp()).as(keeperBehind.detail()).isFalse();
            assertThat(keeperBehind.detail()).contains("budget keeper is behind " + BUDGET);

            // When / Then: both read to their ends
            commit(Map.of(new TopicPartition(BUDGET, 0), 4L));
            BookProgress.Proof caughtUp = progress.prove().get(30, TimeUnit.SECONDS);
            assertThat(caughtUp.caughtUp()).as(caughtUp.detail()).isTrue();

            // When / Then: a record appended after that is needed by the next proof
            send(OBJECTS, 2, 1);
            assertThat(progress.prove().get(30, TimeUnit.SECONDS).caughtUp()).isFalse();
        }
    }

    @Test
    void shouldProveNothingWhenATopicDoesNotExist() throws Exception {
        try (KafkaBookProgress progress = new KafkaBookProgress(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()), GROUP, "book.no-such-topic", BUDGET, Duration.ofMillis(600))) {
            BookProgress.Proof proof = progress.prove().get(30, TimeUnit.SECONDS);
            assertThat(proof.caughtUp()).isFalse();
            assertThat(proof.detail()).contains("could not read the offsets");
        }
    }

    private static void send(String topic, int partition, int count) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, partition, "k" + i, "v" + i));
            }
            producer.flush();
        }
    }

    private static void commit(Map<TopicPartition, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        offsets.forEach((partition, offset) -> commits.put(partition, new OffsetAndMetadata(offset)));
        admin.alterConsumerGroupOffsets(GROUP, commits).all().get(30, TimeUnit.SECONDS);
    }
}
