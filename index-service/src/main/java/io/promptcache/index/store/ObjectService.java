package io.promptcache.index.store;

import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.api.ApiException;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TransactionalPublisher;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;

/**
 * Phase one of removing an object, on request: {@code invalidate} ("missing on GET", any caller of the object's
 * tenant) and {@code delete} (the owner only, seed 000 §5). Both publish the ObjectRecord TOMBSTONED with
 * {@code deleteAfter = now + grace}: lookups stop returning it at once (here as soon as this call returns, on other
 * replicas after their advertise-to-visible lag), in-flight GETs finish within the grace, and the gc-processor
 * nulls its prefixes and deletes the bytes (phase two). Idempotent: an object already tombstoned is left as is.
 */
@ApplicationScoped
public class ObjectService {

    private final ReplicaStores stores;
    private final TransactionalPublisher publisher;
    private final KafkaProducers producers;
    private final Visibility visibility;
    private final Tenancy tenancy;
    private final IndexConfig config;

    ObjectService(ReplicaStores stores, TransactionalPublisher publisher, KafkaProducers producers,
            Visibility visibility, Tenancy tenancy, IndexConfig config) {
        this.stores = stores;
        this.publisher = publisher;
        this.producers = producers;
        this.visibility = visibility;
        this.tenancy = tenancy;
        this.config = config;
    }

    /** The object's record for a caller of its tenant (400 malformed id, 404 unknown, 403 other tenant). */
    public ObjectRecord require(Caller caller, String objectId) {
        ObjectId id = StoreService.parseId(objectId);
        ObjectRecord record = stores.object(id);
        if (record == null) {
            throw ApiException.notFound("UnknownObject", "object " + objectId + " is not registered (never stored, "
                    + "or already deleted)");
        }
        tenancy.authorize(caller, record.getTenantId(), "object " + objectId);
        return record;
    }

    public ObjectRecord invalidate(Caller caller, String objectId) {
        return tombstone(require(caller, objectId), StoreService.parseId(objectId),
                TombstoneReason.TOMBSTONE_REASON_INVALIDATED);
    }

    public ObjectRecord delete(Caller caller, String objectId) {
        ObjectRecord record = require(caller, objectId);
        if (!caller.open() && !caller.tenant().equals(record.getOwnerId())) {
            throw new ApiException(403, "NotOwner", "only the owner (" + record.getOwnerId()
                    + ") deletes object " + objectId);
        }
        return tombstone(record, StoreService.parseId(objectId), TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE);
    }

    /** Tombstones after a storage node answered 404 for a LIVE object (the caller already saw it). */
    public void invalidateMissing(ObjectId id, ObjectRecord record) {
        tombstone(record, id, TombstoneReason.TOMBSTONE_REASON_INVALIDATED);
    }

    private ObjectRecord tombstone(ObjectRecord record, ObjectId id, TombstoneReason reason) {
        if (record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED) {
            return record;
        }
        long now = System.currentTimeMillis();
        ObjectRecord tombstoned = record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(Tombstone.newBuilder().setEpoch(now).setReason(reason)
                        .setDeleteAfterMs(now + config.store().tombstoneGrace().toMillis())
                        .setDecidedBy(producers.instanceId()))
                .build();
        try {
            publisher.publish(List.of(producers.record(Topics.OBJECTS, id, tombstoned)));
        } catch (TransactionalPublisher.PublishException e) {
            throw ApiException.unavailable("KafkaUnavailable", "the tombstone could not be published ("
                    + e.getMessage() + "); the object is unchanged", config.retryAfter(), e);
        }
        visibility.await(id, r -> r.getState() == ObjectState.OBJECT_STATE_TOMBSTONED);
        return tombstoned;
    }
}
