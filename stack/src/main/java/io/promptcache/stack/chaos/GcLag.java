package io.promptcache.stack.chaos;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * How far the gc-processors are behind: records on their input topics (and their own repartition topics) that the
 * consumer group has not committed yet. A GC that falls behind tombstones and nominates late, and nodes that reclaim
 * on demand then run out of room.
 */
final class GcLag implements AutoCloseable {

    /** The gc-processor's Kafka Streams application id, its consumer group. */
    private static final String GROUP = "promptcache-gc";

    private final Admin admin;

    GcLag(String bootstrap) {
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                10_000));
    }

    /** Records behind, over every partition the group has committed; -1 if the broker did not answer. */
    long records() {
        try {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            committed.keySet().forEach(p -> latest.put(p, OffsetSpec.latest()));
            var ends = admin.listOffsets(latest).all().get(10, TimeUnit.SECONDS);
            long behind = 0;
            for (var e : committed.entrySet()) {
                if (e.getValue() != null) {
                    behind += Math.max(0, ends.get(e.getKey()).offset() - e.getValue().offset());
                }
            }
            return behind;
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    @Override
    public void close() {
        admin.close();
    }
}
