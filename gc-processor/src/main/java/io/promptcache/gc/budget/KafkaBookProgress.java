package io.promptcache.gc.budget;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The book's progress read from Kafka's own bookkeeping (docs/architecture.md, "The orphan sweep deletes only proven
 * orphans"): (a) the end offsets of {@code objects}; (b) the GC application's committed offsets there reaching them;
 * (c) then the end offset of the budget keeper's input topic; (d) the keeper's committed offset there reaching it.
 * With exactly-once processing a ledger commits its offsets on {@code objects} with the summaries they produced, and
 * the keeper commits its offset after applying what it read, so (b) and (d) mean every record of {@code objects} up
 * to (a) is in the book. (b) and (d) are polled for at most {@code wait} in all; every call to Kafka is bounded.
 */
public final class KafkaBookProgress implements BookProgress, AutoCloseable {

    private static final long CALL_TIMEOUT_MS = 5_000;
    private static final long POLL_MS = 200;

    private final Map<String, Object> adminConfig;
    private final String groupId;
    private final String objectsTopic;
    private final String budgetTopic;
    private final Duration wait;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "gc-book-progress");
        thread.setDaemon(true);
        return thread;
    });
    private Admin admin;
    /** The cluster's name once read (it never changes). */
    private volatile String cluster;

    /**
     * @param adminConfig the Kafka client settings of an admin client
     * @param groupId the GC's application id (its consumer group)
     * @param objectsTopic the {@code objects} topic's full name
     * @param budgetTopic the keeper's input topic (the summaries' repartition topic)
     * @param wait how long (b) and (d) may take together
     */
    public KafkaBookProgress(Map<String, Object> adminConfig, String groupId, String objectsTopic, String budgetTopic,
            Duration wait) {
        this.adminConfig = new HashMap<>(adminConfig);
        this.adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        this.adminConfig.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS);
        this.groupId = groupId;
        this.objectsTopic = objectsTopic;
        this.budgetTopic = budgetTopic;
        this.wait = wait;
    }

    /** The summaries' repartition topic of application {@code applicationId}, as Kafka Streams names it. */
    public static String budgetTopic(String applicationId, String repartitionName) {
        return applicationId + "-" + repartitionName + "-repartition";
    }

    @Override
    public CompletableFuture<Proof> prove() {
        CompletableFuture<Proof> proof = new CompletableFuture<>();
        try {
            executor.execute(() -> proof.complete(proveNow()));
        } catch (RuntimeException e) { // closed
            proof.complete(new Proof(false, "not running: " + e));
        }
        return proof;
    }

    @Override
    public String cluster() {
        String known = cluster;
        if (known != null) {
            return known;
        }
        try {
            // on the executor: the admin client is that thread's
            known = executor.submit(() -> admin().describeCluster().clusterId().get(CALL_TIMEOUT_MS,
                    TimeUnit.MILLISECONDS) + "." + objectsTopic).get(2 * CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the Kafka cluster id", e);
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            throw new IllegalStateException("could not read the Kafka cluster id: " + e, e);
        }
        cluster = known;
        return known;
    }

    private Proof proveNow() {
        long deadline = System.nanoTime() + wait.toNanos();
        try {
            Admin client = admin();
            String lag = awaitCommitted(client, ends(client, objectsTopic), deadline);
            if (lag != null) {
                return new Proof(false, "the ledgers are behind " + objectsTopic + ": " + lag);
            }
            lag = awaitCommitted(client, ends(client, budgetTopic), deadline);
            if (lag != null) {
                return new Proof(false, "the budget keeper is behind " + budgetTopic + ": " + lag);
            }
            return new Proof(true, "caught up with " + objectsTopic + " and " + budgetTopic);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Proof(false, "interrupted");
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (!(cause instanceof UnknownTopicOrPartitionException)) {
                closeAdmin(); // a fresh client next time
            }
            return new Proof(false, "could not read the offsets: " + cause);
        }
    }

    /** Null once the group's committed offsets reach {@code ends}, else what lags when the deadline passed. */
    private String awaitCommitted(Admin client, Map<TopicPartition, Long> ends, long deadline)
            throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, Long> earliest = null;
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> committed = client.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata().get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            List<String> lagging = new ArrayList<>();
            for (Map.Entry<TopicPartition, Long> end : ends.entrySet()) {
                OffsetAndMetadata offset = committed.get(end.getKey());
                long at;
                if (offset != null) {
                    at = offset.offset();
                } else {
                    // nothing committed: caught up only if the partition holds nothing to read
                    if (earliest == null) {
                        earliest = offsets(client, ends.keySet(), OffsetSpec.earliest());
                    }
                    at = earliest.getOrDefault(end.getKey(), 0L);
                }
                if (at < end.getValue()) {
                    lagging.add(end.getKey().partition() + " at " + (offset == null ? "none" : at) + " of "
                            + end.getValue());
                }
            }
            if (lagging.isEmpty()) {
                return null;
            }
            if (System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(POLL_MS) > deadline) {
                return "partitions " + lagging;
            }
            Thread.sleep(POLL_MS);
        }
    }

    private static Map<TopicPartition, Long> ends(Admin client, String topic)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<TopicPartition> partitions = client.describeTopics(List.of(topic)).allTopicNames()
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic).partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        return offsets(client, partitions, OffsetSpec.latest());
    }

    private static Map<TopicPartition, Long> offsets(Admin client, Iterable<TopicPartition> partitions,
            OffsetSpec spec) throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(p, spec));
        Map<TopicPartition, Long> offsets = new HashMap<>();
        client.listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).forEach((p, info) -> offsets.put(p, info.offset()));
        return offsets;
    }

    private Admin admin() {
        if (admin == null) {
            admin = Admin.create(adminConfig);
        }
        return admin;
    }

    private void closeAdmin() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
            admin = null;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeAdmin();
    }
}
