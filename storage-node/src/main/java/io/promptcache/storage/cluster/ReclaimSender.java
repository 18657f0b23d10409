package io.promptcache.storage.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.Reclaim;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.Topics;
import io.promptcache.storage.store.ReclaimLog;

/**
 * Sends each object this node deleted on its own for room once, as a {@code reclaims} record (docs/architecture.md,
 * "Reclaims, one record each"). Called on the heartbeat thread, never on the write path: the deleting thread only
 * queues in the {@link ReclaimLog}. A record whose delivery fails goes back to the queue and is sent with a later
 * heartbeat; the GC ignores a duplicate.
 */
final class ReclaimSender implements AutoCloseable {

    private final ReclaimLog log;
    private final String topic;
    private final NodeId nodeId;
    private final KafkaProducer<NodeId, Reclaim> producer;
    private final DeliveryWarning warning;

    ReclaimSender(ReclaimLog log, String topic, NodeId nodeId, Map<String, Object> producerConfig) {
        this.log = log;
        this.topic = topic;
        this.nodeId = nodeId;
        this.warning = new DeliveryWarning("Reclaims of node " + nodeId, "kept, will keep trying");
        this.producer = new KafkaProducer<>(producerConfig, Topics.RECLAIMS.keySerde().serializer(),
                Topics.RECLAIMS.valueSerde().serializer());
    }

    /** Sends what the log queued since the last call. */
    void send() {
        List<ReclaimLog.Entry> entries = log.takeUnsent();
        for (int i = 0; i < entries.size(); i++) {
            ReclaimLog.Entry entry = entries.get(i);
            try {
                Future<RecordMetadata> sent = producer.send(new ProducerRecord<>(topic, nodeId, record(entry)),
                        (metadata, error) -> {
                            if (error != null) {
                                log.requeue(List.of(entry));
                                warning.failed(error);
                            } else {
                                warning.delivered();
                            }
                        });
                if (failedAtOnce(sent)) {
                    // the broker's metadata did not come within max.block.ms: each further send would block as long
                    // (the heartbeat thread, for minutes with a long queue); the rest wait for the next heartbeat
                    log.requeue(entries.subList(i + 1, entries.size()));
                    return;
                }
            } catch (RuntimeException e) {
                // not handed to the producer (it is closing, or the broker's metadata did not come): these wait
                log.requeue(entries.subList(i, entries.size()));
                warning.failed(e);
                return;
            }
        }
    }

    /** Whether {@code sent} failed before send returned (its callback has put the entry back already). */
    private static boolean failedAtOnce(Future<RecordMetadata> sent) {
        if (!sent.isDone()) {
            return false;
        }
        try {
            sent.get();
            return false;
        } catch (ExecutionException e) {
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    Reclaim record(ReclaimLog.Entry entry) {
        return Reclaim.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNodeId(nodeId.value())
                .setBucket(entry.bucket()).setKey(entry.key()).setReclaimedAtMs(entry.atMs()).build();
    }

    /** Closes the producer, delivering what was handed to it (the last heartbeat sent the queue). */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(2));
    }
}
