package io.promptcache.index.store;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TransactionalPublisher;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.Topics;

/**
 * Registers a store whose bytes are on its nodes: its key pages (a store of more than 1,024 keys), its object record,
 * and with {@code store.advertise-keys} its ADVERTISEs, in one publish (one record: no transaction; more: one
 * transaction, the pages first: docs/architecture.md, "Key pages"). Every record is checked against the size a
 * service writes at most before anything is sent. A store that is not registered (too large, or Kafka did not take
 * it in time) has its bytes deleted from the nodes it wrote before the engine gets the error, best effort: nothing is
 * left behind but what a crash leaves, which is the orphan sweep's. A record that Kafka took after all, though the
 * publish timed out, then names deleted bytes: its GET is a miss the engine reports, never wrong bytes.
 */
@ApplicationScoped
public class StoreRegistration {

    private static final Logger LOG = LoggerFactory.getLogger(StoreRegistration.class);

    private final TransactionalPublisher publisher;
    private final KafkaProducers producers;
    private final NodeStorage storage;
    private final IndexMetrics metrics;

    StoreRegistration(TransactionalPublisher publisher, KafkaProducers producers, NodeStorage storage,
            IndexMetrics metrics) {
        this.publisher = publisher;
        this.producers = producers;
        this.storage = storage;
        this.metrics = metrics;
    }

    /**
     * Publishes {@code written}, the records of object {@code id} stored under {@code key} on {@code copies}.
     *
     * @throws ApiException 413 {@code RecordTooLarge} or 503 {@code KafkaUnavailable}, its bytes deleted first
     */
    void publish(ObjectId id, StoreRecords written, List<NodeStatus> copies, String key) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(written.records());
        // the pages first, in the same transaction: a reader that sees the record finds them or gets them next
        for (int page = 0; page < written.pages().size(); page++) {
            records.add(producers.record(Topics.OBJECT_KEYS, new KeyPageId(id, page), written.pages().get(page)));
        }
        records.add(producers.record(Topics.OBJECTS, id, written.object()));
        written.advertised().forEach((prefix, entry) -> records.add(producers.record(Topics.PREFIXES, prefix, entry)));
        int largest = records.stream().mapToInt(r -> r.key().length + r.value().length).max().orElse(0);
        if (largest > Topics.MAX_WRITTEN_RECORD_BYTES) {
            unregistered(id, copies, key, "a record of " + largest + " bytes");
            throw new ApiException(ApiErrorCode.RECORD_TOO_LARGE, "the object's record would have " + largest
                    + " bytes, over the " + Topics.MAX_WRITTEN_RECORD_BYTES + " a record may have (its layout or its "
                    + "chain of shared pieces is too long: store it whole, with layout.bytesPerBlock)");
        }
        try {
            publisher.publish(records, metrics::storePhase);
        } catch (TransactionalPublisher.PublishException e) {
            unregistered(id, copies, key, e.getMessage());
            throw new ApiException(ApiErrorCode.KAFKA_UNAVAILABLE, "the object could not be registered: Kafka did not "
                    + "acknowledge its records in time (its bytes were deleted from its nodes)", e);
        }
    }

    private void unregistered(ObjectId id, List<NodeStatus> copies, String key, String why) {
        LOG.warn("Store of {} not registered ({}): deleting its bytes from {}", id, why,
                copies.stream().map(NodeStatus::getNodeId).toList());
        copies.forEach(copy -> storage.deleteQuietly(copy, key));
    }
}
