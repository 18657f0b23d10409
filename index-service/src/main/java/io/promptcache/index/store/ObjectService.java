package io.promptcache.index.store;

import java.time.Duration;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TransactionalPublisher;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.index.storage.StorageCallException;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.GraceWindow;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;
import io.quarkus.runtime.Startup;

/**
 * Objects by id: {@code load} (one range GET on the node), and phase one of removing an object, on request: {@code invalidate} ("missing on GET", any caller of the object's
 * tenant) and {@code delete} (the owner only, seed 000 §5). Both publish the ObjectRecord TOMBSTONED with
 * {@code deleteAfter = now + grace}: lookups stop returning it at once (here as soon as this call returns, on other
 * replicas after their advertise-to-visible lag), in-flight GETs finish within the grace, and the gc-processor
 * nulls its prefixes and deletes the bytes (phase two). Idempotent: an object already tombstoned is left as is.
 */
@Startup // its grace window is checked as the replica starts
@ApplicationScoped
public class ObjectService {

    private final ReplicaStores stores;
    private final TransactionalPublisher publisher;
    private final KafkaProducers producers;
    private final Visibility visibility;
    private final Tenancy tenancy;
    private final NodeDirectory nodes;
    private final NodeStorage storage;
    /** How long a tombstone of a delete keeps the bytes readable (the shared {@link GraceWindow}). */
    private final long graceMs;

    ObjectService(ReplicaStores stores, TransactionalPublisher publisher, KafkaProducers producers,
            Visibility visibility, Tenancy tenancy, NodeDirectory nodes, NodeStorage storage,
            @ConfigProperty(name = GraceWindow.KEY, defaultValue = GraceWindow.DEFAULT) Duration grace) {
        this.graceMs = GraceWindow.check(grace).toMillis();
        this.stores = stores;
        this.publisher = publisher;
        this.producers = producers;
        this.visibility = visibility;
        this.tenancy = tenancy;
        this.nodes = nodes;
        this.storage = storage;
    }

    /**
     * One range GET of the object on its node ({@code range} null: all of it); the caller closes the body. A
     * tombstoned object stays loadable during its grace window. With several copies, a copy whose node does not
     * answer (refused, or not in time: a node stopped before its heartbeats lapse) or does not have it is passed over
     * for the next; the object is invalidated only when every copy tried answered 404.
     */
    public NodeStorage.Body load(Caller caller, String objectId, String range) {
        ObjectRecord record = require(caller, objectId);
        List<NodeStatus> copies = nodes.servingCopies(record);
        if (copies.isEmpty()) {
            NodeStatus node = nodeOf(record);
            if (node == null) {
                throw new ApiException(ApiErrorCode.STORAGE_NODE_GONE, "the node of object " + objectId
                        + " is not known any more");
            }
            copies = List.of(node);
        }
        StorageCallException failure = null;
        int missing = 0;
        for (NodeStatus node : copies) {
            try {
                return storage.get(node, record.getBucket(), record.getKey(), range);
            } catch (StorageCallException e) {
                if (e.kind() == StorageCallException.Kind.INVALID_RANGE) {
                    throw new ApiException(ApiErrorCode.INVALID_RANGE, "range " + range
                            + " is outside the object's " + record.getTotalBytes() + " bytes");
                }
                missing += e.kind() == StorageCallException.Kind.NOT_FOUND ? 1 : 0;
                failure = e;
            }
        }
        if (missing == copies.size()) {
            tombstone(record, ObjectIds.parse(objectId), TombstoneReason.TOMBSTONE_REASON_INVALIDATED);
            throw new ApiException(ApiErrorCode.OBJECT_MISSING, "storage node " + copies.get(0).getNodeId()
                    + " does not have object " + objectId + " (lost); it is invalidated: treat it as a miss");
        }
        throw new ApiException(ApiErrorCode.STORAGE_NODE_FAILED, failure.getMessage(), failure);
    }

    /** The object's record for a caller of its tenant (400 malformed id, 404 unknown, 403 other tenant). */
    public ObjectRecord require(Caller caller, String objectId) {
        ObjectId id = ObjectIds.parse(objectId);
        ObjectRecord record = stores.object(id);
        if (record == null) {
            throw new ApiException(ApiErrorCode.UNKNOWN_OBJECT,
                    "object " + objectId + " is not registered (never stored, "
                            + "or already deleted)");
        }
        tenancy.authorize(caller, record.getTenantId(), "object " + objectId);
        return record;
    }

    /**
     * An engine's report that the object was missing on GET, checked with a HEAD on its node before anything is
     * tombstoned: a caller cannot evict objects that are there (409 ObjectPresent), and a node that does not answer
     * invalidates nothing (503). An object whose node is unknown (gone for good) is tombstoned at once.
     */
    public ObjectRecord invalidate(Caller caller, String objectId) {
        ObjectRecord record = require(caller, objectId);
        ObjectId id = ObjectIds.parse(objectId);
        if (record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED) {
            return record;
        }
        NodeStatus node = nodeOf(record);
        if (node != null) {
            try {
                storage.size(node, record.getBucket(), record.getKey());
                throw new ApiException(ApiErrorCode.OBJECT_PRESENT, "storage node " + node.getNodeId() + " has "
                        + "object " + objectId + ": it is not invalidated. Retry the GET (a 404 can be transient, "
                        + "e.g. during a node restart), or delete it as its owner");
            } catch (StorageCallException e) {
                if (e.kind() != StorageCallException.Kind.NOT_FOUND) {
                    throw new ApiException(ApiErrorCode.STORAGE_NODE_FAILED, e.getMessage() + "; nothing was "
                            + "invalidated", e);
                }
            }
        }
        return tombstone(record, id, TombstoneReason.TOMBSTONE_REASON_INVALIDATED);
    }

    /** The known node the object is on, or null (no node, or one that never sent a heartbeat). */
    private NodeStatus nodeOf(ObjectRecord record) {
        NodeStatus serving = nodes.servingCopy(record);
        return serving != null || record.getNodesCount() == 0 ? serving : nodes.known(record.getNodes(0));
    }

    public ObjectRecord delete(Caller caller, String objectId) {
        ObjectRecord record = require(caller, objectId);
        if (!caller.owns(record.getOwnerId())) {
            throw new ApiException(ApiErrorCode.NOT_OWNER, "only the API key that stored object " + objectId + " ("
                    + record.getOwnerId() + ") deletes it; this is " + caller.principal()
                    + ". Report a missing object with invalidate instead");
        }
        return tombstone(record, ObjectIds.parse(objectId), TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE);
    }

    /**
     * Publishes the tombstone. An owner's delete gets the grace window (readers that looked it up finish their GETs);
     * an invalidated object is missing on its node already, so it has nothing for a reader to finish and is due at
     * once (its bytes do not stay counted in the GC's budgets for a grace window).
     */
    private ObjectRecord tombstone(ObjectRecord record, ObjectId id, TombstoneReason reason) {
        if (record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED) {
            return record;
        }
        long now = System.currentTimeMillis();
        long grace = reason == TombstoneReason.TOMBSTONE_REASON_INVALIDATED
                ? 0
                : graceMs;
        ObjectRecord tombstoned = Tombstones.of(record, reason, now + grace, producers.instanceId());
        try {
            publisher.publish(List.of(producers.record(Topics.OBJECTS, id, tombstoned)));
        } catch (TransactionalPublisher.PublishException e) {
            throw new ApiException(ApiErrorCode.KAFKA_UNAVAILABLE,
                    "the tombstone could not be published: Kafka did not "
                            + "commit it in time; the object is unchanged",
                    e);
        }
        visibility.await(id, r -> r.getState() == ObjectState.OBJECT_STATE_TOMBSTONED);
        return tombstoned;
    }
}
