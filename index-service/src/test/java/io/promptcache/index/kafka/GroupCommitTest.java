package io.promptcache.index.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import io.promptcache.index.api.Api;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Group commit on the real broker: 16 threads publish 96 batches at once through the replica's pool of 4
 * transactional producers. Every record of every batch becomes visible to a {@code read_committed} reader, each
 * batch whole, and the batches shared transactions (fewer transactions than batches). A batch of one record takes
 * no transaction.
 */
@QuarkusTest
class GroupCommitTest {

    private static final int BATCHES = 96;
    private static final int RECORDS = 40;

    @Inject
    TransactionalPublisher publisher;

    @Inject
    KafkaProducers producers;

    @Test
    void shouldCommitEveryBatchWholeInFewerTransactionsThanBatches() throws Exception {
        String run = UUID.randomUUID().toString();
        String topic = producers.catalog().name(Topics.ACCESS);
        double transactionsBefore = Api.counter("promptcache_store_transactions_total");
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int b = 0; b < BATCHES; b++) {
                List<ProducerRecord<byte[], byte[]>> batch = new ArrayList<>();
                for (int r = 0; r < RECORDS; r++) {
                    batch.add(new ProducerRecord<>(topic, (run + "/" + b + "/" + r).getBytes(StandardCharsets.UTF_8),
                            new byte[]{1}));
                }
                done.add(threads.submit(() -> publisher.publish(batch)));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        double transactions = Api.counter("promptcache_store_transactions_total") - transactionsBefore;

        assertThat(committed(topic, run, BATCHES * RECORDS)).as("records of the run visible to read_committed")
                .hasSize(BATCHES * RECORDS);
        assertThat(transactions).as("transactions for %d batches", BATCHES).isPositive().isLessThan(BATCHES);
    }

    @Test
    void shouldSendABatchOfOneRecordWithoutATransaction() throws Exception {
        // Given: 64 batches of one record each (a store of this build: its ObjectRecord alone), from 16 threads
        String run = UUID.randomUUID().toString();
        String topic = producers.catalog().name(Topics.ACCESS);
        double transactionsBefore = Api.counter("promptcache_store_transactions_total");
        double sendsBefore = Api.counter("promptcache_store_sends_total");
        int batches = 64;
        ExecutorService threads = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int b = 0; b < batches; b++) {
                ProducerRecord<byte[], byte[]> one = new ProducerRecord<>(topic,
                        (run + "/" + b).getBytes(StandardCharsets.UTF_8), new byte[]{1});
                done.add(threads.submit(() -> publisher.publish(List.of(one))));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }

        // Then: each is visible to a read_committed reader once publish returned, and none took a transaction
        assertThat(committed(topic, run, batches)).hasSize(batches);
        assertThat(Api.counter("promptcache_store_transactions_total") - transactionsBefore).isZero();
        assertThat(Api.counter("promptcache_store_sends_total") - sendsBefore).isEqualTo(batches);
    }

    /** The keys of {@code run} a {@code read_committed} reader finds in {@code topic} (waits for up to 30 s). */
    private Set<String> committed(String topic, String run, int expected) {
        Set<String> seen = new HashSet<>();
        try (KafkaConsumer<byte[], byte[]> consumer = producers.consumer(Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (seen.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String key = new String(r.key(), StandardCharsets.UTF_8);
                    if (key.startsWith(run + "/")) {
                        seen.add(key);
                    }
                }
            }
        }
        return seen;
    }
}
