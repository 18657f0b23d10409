package io.promptcache.index.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.clients.producer.ProducerRecord;
import org.jboss.logging.Logger;

import io.promptcache.index.api.ApiException;
import io.promptcache.index.api.ReservationResponse;
import io.promptcache.index.api.StoreResponse;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TransactionalPublisher;
import io.promptcache.index.lookup.LookupService;
import io.promptcache.index.lookup.PrefixMatch;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.Topics;

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The store path: dedup guard, placement, PUT through the AWS SDK (streaming), then one Kafka transaction with the
 * ObjectRecord (LIVE) and one ADVERTISE per covered prefix. A failure before the commit advertises nothing; bytes
 * already on a node without a record are the GC's orphan sweep's to remove.
 */
@ApplicationScoped
public class StoreService {

    private static final Logger LOG = Logger.getLogger(StoreService.class);

    private final LookupService lookup;
    private final Placement placement;
    private final StorageClients storage;
    private final TransactionalPublisher publisher;
    private final KafkaProducers producers;
    private final ReplicaStores stores;
    private final Visibility visibility;
    private final IndexMetrics metrics;
    private final IndexConfig config;
    private final Set<String> bucketsReady = ConcurrentHashMap.newKeySet();

    StoreService(LookupService lookup, Placement placement, StorageClients storage, TransactionalPublisher publisher,
            KafkaProducers producers, ReplicaStores stores, Visibility visibility, IndexMetrics metrics,
            IndexConfig config) {
        this.lookup = lookup;
        this.placement = placement;
        this.storage = storage;
        this.publisher = publisher;
        this.producers = producers;
        this.stores = stores;
        this.visibility = visibility;
        this.metrics = metrics;
        this.config = config;
    }

    /** The object already covering the whole prefix, or null: then nothing needs storing. */
    public StoreResponse existing(StorePlan plan) {
        PrefixMatch match = lookup.longest(plan.chain());
        if (match.blocks() < plan.blocks()) {
            return null;
        }
        ObjectRecord object = match.object();
        String node = object.getNodesCount() == 0 ? null : object.getNodes(0);
        return new StoreResponse(match.entry().getObjectId(), true, node, plan.blocks(),
                plan.blocks() * plan.spec().blockSize(), object.getTotalBytes());
    }

    /** One-shot store of {@code body} ({@code plan.totalBytes()} bytes). */
    public StoreResponse store(StorePlan plan, InputStream body) {
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            StoreResponse existing = existing(plan);
            if (existing != null) {
                drain(body);
                outcome = "deduplicated";
                return existing;
            }
            ObjectId id = ObjectId.generate();
            NodeStatus node = place(id, plan.totalBytes());
            String key = key(plan, id);
            put(node, key, body, plan.totalBytes());
            StoreResponse stored = commit(plan, id, node, key);
            outcome = "stored";
            return stored;
        } finally {
            metrics.store(outcome, System.nanoTime() - start);
        }
    }

    /** Step one of the two-step store: an id, a node and a PUT URL (or the object that already covers it). */
    public ReservationResponse reserve(StorePlan plan) {
        StoreResponse existing = existing(plan);
        if (existing != null) {
            return new ReservationResponse(existing.objectId(), true, existing.node(), null, existing.bytes(), null,
                    null);
        }
        ObjectId id = ObjectId.generate();
        NodeStatus node = place(id, plan.totalBytes());
        ensureBucket(node);
        long expiresAt = System.currentTimeMillis() + config.store().reservationExpiry().toMillis();
        String url = storage.putUrl(node.getEndpoint(), bucket(), key(plan, id), plan.totalBytes(),
                config.store().reservationExpiry());
        return new ReservationResponse(id.toString(), false, node.getNodeId(), url, plan.totalBytes(),
                storage.signed() ? expiresAt : null,
                "/v1/namespaces/" + plan.spec().id() + "/reservations/" + id + "/commit");
    }

    /** Step two: the engine PUT the bytes; check them on the node and publish. Idempotent. */
    public StoreResponse commitReservation(StorePlan plan, String objectId, String nodeId) {
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            ObjectId id = parseId(objectId);
            ObjectRecord known = stores.object(id);
            if (known != null) {
                if (!known.getNamespaceId().equals(plan.spec().idText())) {
                    throw new ApiException(409, "ObjectIdInUse", "object " + objectId
                            + " belongs to another namespace");
                }
                outcome = "deduplicated";
                return new StoreResponse(objectId, true, known.getNodesCount() == 0 ? null : known.getNodes(0),
                        known.getBlocks(),
                        known.getBlocks() * plan.spec().blockSize(), known.getTotalBytes());
            }
            if (nodeId == null || nodeId.isBlank()) {
                throw ApiException.badRequest("node is required: send the node of the reservation");
            }
            NodeStatus node = stores.node(nodeId);
            if (node == null) {
                throw new ApiException(409, "UnknownNode", "node " + nodeId + " is not a known storage node");
            }
            String key = key(plan, id);
            long size = uploadedSize(node, key);
            if (size != plan.totalBytes()) {
                throw new ApiException(409, "SizeMismatch", "the uploaded object has " + size
                        + " bytes; the layout says " + plan.totalBytes());
            }
            StoreResponse stored = commit(plan, id, node, key);
            outcome = "stored";
            return stored;
        } finally {
            metrics.store(outcome, System.nanoTime() - start);
        }
    }

    private NodeStatus place(ObjectId id, long bytes) {
        if (bytes > config.store().maxObjectBytes()) {
            throw new ApiException(413, "ObjectTooLarge", "the object has " + bytes + " bytes; at most "
                    + config.store().maxObjectBytes() + " (promptcache.index.store.max-object-bytes)");
        }
        NodeStatus node = placement.choose(id, bytes);
        if (node == null) {
            throw ApiException.unavailable("NoStorageNode", "no live storage node has room for " + bytes
                    + " bytes (" + placement.liveNodes().size() + " live)", config.retryAfter(), null);
        }
        return node;
    }

    private void put(NodeStatus node, String key, InputStream body, long bytes) {
        ensureBucket(node);
        try {
            storage.client().putObject(b -> b.bucket(bucket()).key(key).contentLength(bytes)
                    .contentType("application/octet-stream").overrideConfiguration(storage.once(node.getEndpoint())),
                    RequestBody.fromInputStream(body, bytes));
        } catch (SdkException e) {
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " failed the PUT: " + e.getMessage() + "; nothing was advertised", config.retryAfter(), e);
        }
    }

    private long uploadedSize(NodeStatus node, String key) {
        try {
            HeadObjectResponse head = storage.client().headObject(b -> b.bucket(bucket()).key(key)
                    .overrideConfiguration(storage.at(node.getEndpoint())));
            return head.contentLength();
        } catch (NoSuchKeyException e) {
            throw new ApiException(409, "NotUploaded", "nothing was PUT to the reservation's URL on node "
                    + node.getNodeId() + " yet");
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new ApiException(409, "NotUploaded", "nothing was PUT to the reservation's URL on node "
                        + node.getNodeId() + " yet");
            }
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " failed the HEAD: " + e.getMessage(), config.retryAfter(), e);
        } catch (SdkException e) {
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " failed the HEAD: " + e.getMessage(), config.retryAfter(), e);
        }
    }

    /** The one transaction: ObjectRecord LIVE + one ADVERTISE per covered prefix; then wait until visible here. */
    private StoreResponse commit(StorePlan plan, ObjectId id, NodeStatus node, String key) {
        long now = System.currentTimeMillis();
        String namespace = plan.spec().idText();
        String owner = plan.spec().tenant();
        ObjectRecord record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(namespace).addNodes(node.getNodeId())
                .setBucket(bucket()).setKey(key).setTotalBytes(plan.totalBytes()).setLayout(plan.layout())
                .setBlocks(plan.blocks()).setOwnerId(owner).setTenantId(plan.spec().tenant())
                .setPriority(plan.priority()).setPinned(plan.pinned()).setCreatedAtMs(now).build();
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(plan.blocks() + 1);
        records.add(producers.record(Topics.OBJECTS, id, record));
        for (int k = 1; k <= plan.blocks(); k++) {
            PrefixEntry entry = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                    .setObjectId(id.toString()).setBlocks(k).setUsableBytes(plan.usableBytes()[k - 1])
                    .setVersion(now).setOwnerId(owner).setPriority(plan.priority()).setAdvertisedAtMs(now).build();
            records.add(producers.record(Topics.PREFIXES, plan.chain().key(k), entry));
        }
        try {
            publisher.publish(records);
        } catch (TransactionalPublisher.PublishException e) {
            LOG.warnf("Store of %s not published (%s); its %d bytes on node %s are left to the GC's orphan sweep",
                    id, e.getMessage(), plan.totalBytes(), node.getNodeId());
            throw ApiException.unavailable("KafkaUnavailable", "the object could not be registered: Kafka did not "
                    + "commit the transaction (" + e.getMessage() + "); nothing was advertised", config.retryAfter(),
                    e);
        }
        visibility.await(id, r -> r.getState() == ObjectState.OBJECT_STATE_LIVE);
        return new StoreResponse(id.toString(), false, node.getNodeId(), plan.blocks(),
                plan.blocks() * plan.spec().blockSize(), plan.totalBytes());
    }

    private void ensureBucket(NodeStatus node) {
        if (bucketsReady.contains(node.getEndpoint())) {
            return;
        }
        S3Client client = storage.client();
        AwsRequestOverrideConfiguration target = storage.at(node.getEndpoint());
        try {
            try {
                client.headBucket(b -> b.bucket(bucket()).overrideConfiguration(target));
            } catch (NoSuchBucketException e) {
                client.createBucket(b -> b.bucket(bucket()).overrideConfiguration(target));
            } catch (S3Exception e) {
                if (e.statusCode() != 404) {
                    throw e;
                }
                client.createBucket(b -> b.bucket(bucket()).overrideConfiguration(target));
            }
        } catch (S3Exception e) {
            if (!"BucketAlreadyOwnedByYou".equals(e.awsErrorDetails().errorCode())) {
                throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                        + " could not create bucket " + bucket() + ": " + e.getMessage(), config.retryAfter(), e);
            }
        } catch (SdkException e) {
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " is unreachable: " + e.getMessage(), config.retryAfter(), e);
        }
        bucketsReady.add(node.getEndpoint());
    }

    private String bucket() {
        return config.store().bucket();
    }

    private static String key(StorePlan plan, ObjectId id) {
        return plan.spec().id() + "/" + id;
    }

    static ObjectId parseId(String objectId) {
        try {
            return ObjectId.parse(objectId);
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static void drain(InputStream body) {
        try {
            body.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            LOG.debugf("draining a deduplicated store body: %s", e);
        }
    }
}
