package io.promptcache.index.store;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.lookup.PrefixMatch;
import io.promptcache.index.lookup.PrefixMatcher;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.metrics.StorePhase;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.index.storage.StorageCallException;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The store path: dedup guard, then either a continuation (the prompt extends a live object's prefix: the new
 * object shares that prefix on the parent's node and only the blocks beyond it are written, {@link Continuations})
 * or a whole object (placement, PUT through the AWS SDK, streaming); then its records ({@link StoreRegistration}). A
 * failure before the commit advertises nothing; bytes already on a node without a record are deleted, or, after a
 * crash, the GC's orphan sweep's to remove.
 */
@ApplicationScoped
public class StoreService {

    private static final Logger LOG = LoggerFactory.getLogger(StoreService.class);

    private final PrefixMatcher matcher;
    private final Placement placement;
    private final Continuations continuations;
    private final ContinuationUploads uploads;
    private final NodeStorage storage;
    private final NodeDirectory nodes;
    private final StoreRegistration registration;
    private final KafkaProducers producers;
    private final ReplicaStores stores;
    private final IndexMetrics metrics;
    private final IndexConfig config;
    private final CopyWrites copyWrites;

    StoreService(PrefixMatcher matcher, Placement placement, Continuations continuations, ContinuationUploads uploads,
            CopyWrites copyWrites, NodeStorage storage, NodeDirectory nodes, StoreRegistration registration,
            KafkaProducers producers, ReplicaStores stores, IndexMetrics metrics, IndexConfig config) {
        this.matcher = matcher;
        this.copyWrites = copyWrites;
        this.placement = placement;
        this.continuations = continuations;
        this.uploads = uploads;
        this.storage = storage;
        this.nodes = nodes;
        this.registration = registration;
        this.producers = producers;
        this.stores = stores;
        this.metrics = metrics;
        this.config = config;
    }

    /**
     * The object already covering the whole prefix, or null: then nothing needs storing. An object on a node that is
     * not live does not count: its prefixes are stored again elsewhere rather than blocked until the GC declares the
     * node lost.
     */
    private StoreOutcome existing(StorePlan plan, PrefixMatch match) {
        if (match.blocks() < plan.blocks()) {
            return null;
        }
        ObjectRecord object = match.object();
        NodeStatus serving = nodes.servingCopy(object);
        if (object.getNodesCount() > 0 && serving == null) {
            return null;
        }
        String node = serving == null ? null : serving.getNodeId();
        return new StoreOutcome(match.entry().getObjectId(), true, node, plan.blocks(),
                plan.blocks() * plan.spec().blockSize(), object.getTotalBytes(), null, null);
    }

    /** One-shot store of {@code body} ({@code plan.sentBytes()} bytes). */
    public StoreOutcome store(StorePlan plan, InputStream body) {
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            PrefixMatch match = matcher.longest(plan.chain());
            StoreOutcome existing = existing(plan, match);
            if (existing != null) {
                drain(body);
                outcome = "deduplicated";
                return existing;
            }
            ObjectId id = ObjectId.generate();
            String key = key(plan, id);
            Continuation continuation = startable(plan, match);
            long step = timed(StorePhase.PLAN, start);
            // the engine sent only the new bytes: nothing to fall back to, so the copy may overlap their upload
            List<ContinuationUploads.Upload> started = continuation == null
                    ? null
                    : start(plan, continuation, key, plan.fromBlock() > 0);
            if (started == null) {
                List<NodeStatus> copies = put(place(id, plan.totalBytes()), key, body, plan.totalBytes(),
                        plan.pinned());
                timed(StorePhase.NODE_WRITE, step);
                StoreOutcome stored = commit(plan, id, copies, key, null);
                outcome = "stored";
                return stored;
            }
            step = timed(StorePhase.NODE_START, step);
            skip(body, continuation.sharedBytes() - plan.bytesOf(plan.fromBlock()));
            List<NodeStatus> copies = uploads.finish(key, started, body, plan.totalBytes()
                    - continuation.sharedBytes());
            timed(StorePhase.NODE_WRITE, step);
            StoreOutcome stored = commit(plan, id, copies, key, continuation);
            outcome = "continued";
            return stored;
        } catch (ApiException e) {
            outcome = failed(e);
            throw e;
        } finally {
            metrics.store(plan.reason().tag(), outcome, System.nanoTime() - start);
        }
    }

    /**
     * The continuation to store, or null for a whole object; {@code 409 ContinuationUnavailable} when the engine
     * sent only the blocks from {@code fromBlock} on and no live object holds the ones before.
     */
    private Continuation startable(StorePlan plan, PrefixMatch match) {
        Continuation continuation = continuations.plan(plan, match);
        if (plan.fromBlock() > 0 && (continuation == null || continuation.blocks() < plan.fromBlock())) {
            throw unavailable(plan);
        }
        return continuation;
    }

    /**
     * Starts the continuation's upload (its shared part copied on the node); null when that failed and the engine
     * sent the whole prompt, which is then stored whole instead.
     */
    private List<ContinuationUploads.Upload> start(StorePlan plan, Continuation continuation, String key,
            boolean overlap) {
        try {
            return uploads.start(continuation, key, plan.pinned(), overlap);
        } catch (ApiException e) {
            if (plan.fromBlock() > 0) {
                throw e;
            }
            LOG.debug("Continuation of {} not possible ({}); storing the whole prompt", continuation.parentId(),
                    e.getMessage());
            return null;
        }
    }

    /** Step one of the two-step store: an id, a node and a PUT URL (or the object that already covers it). */
    public Reservation reserve(StorePlan plan) {
        PrefixMatch match = matcher.longest(plan.chain());
        StoreOutcome existing = existing(plan, match);
        if (existing != null) {
            return new Reservation(existing.objectId(), true, existing.node(), null, existing.bytes(), null, null,
                    null, null);
        }
        ObjectId id = ObjectId.generate();
        String key = key(plan, id);
        Continuation continuation = startable(plan, match);
        // the engine uploads to the first copy's node; the commit makes the other copies from there
        List<ContinuationUploads.Upload> started = continuation == null
                ? null
                : start(plan, continuation.onFirst(), key, false);
        long expiresAt = System.currentTimeMillis() + config.store().reservationExpiry().toMillis();
        if (started == null) {
            NodeStatus node = place(id, plan.totalBytes()).get(0); // the other copies are made at the commit
            prepare(node);
            String url = storage.putUrl(node, key, plan.totalBytes(),
                    config.store().reservationExpiry());
            return new Reservation(id.toString(), false, node.getNodeId(), url, plan.totalBytes(),
                    storage.signed(node) ? expiresAt : null, null, null, null);
        }
        long bytes = plan.totalBytes() - continuation.sharedBytes();
        ContinuationUploads.Upload upload = started.get(0);
        String url = uploads.partUrl(upload.node(), key, upload.uploadId(), bytes,
                config.store().reservationExpiry());
        return new Reservation(id.toString(), false, upload.node().getNodeId(), url, bytes,
                storage.signed(upload.node()) ? expiresAt : null, continuation.blocks(),
                continuation.parentId().toString(), upload.uploadId());
    }

    /** Step two: the engine PUT the bytes; check them on the node and publish. Idempotent. */
    public StoreOutcome commitReservation(StorePlan plan, String objectId, String nodeId, String uploadId,
            String continues) {
        long start = System.nanoTime();
        String outcome = "failed";
        try {
            ObjectId id = ObjectIds.parse(objectId);
            ObjectRecord known = stores.object(id);
            if (known != null) {
                if (!known.getNamespaceId().equals(plan.spec().idText())) {
                    throw new ApiException(ApiErrorCode.OBJECT_ID_IN_USE, "object " + objectId
                            + " belongs to another namespace");
                }
                outcome = "deduplicated";
                return new StoreOutcome(objectId, true, known.getNodesCount() == 0 ? null : known.getNodes(0),
                        known.getBlocks(), known.getBlocks() * plan.spec().blockSize(), known.getTotalBytes(),
                        emptyToNull(known.getParentObjectId()),
                        known.getSharedBytes() == 0 ? null : known.getSharedBytes());
            }
            long age = System.currentTimeMillis() - id.timestampMillis();
            if (age > 2 * config.store().reservationExpiry().toMillis()) {
                // its bytes may be swept as an orphan from now on (docs/architecture.md, "The orphan sweep deletes
                // only proven orphans"): a record for them must not appear
                throw new ApiException(ApiErrorCode.RESERVATION_EXPIRED, "reservation " + objectId + " was made "
                        + age / 1000 + " s ago; commits are accepted for " + 2 * config.store().reservationExpiry()
                                .toSeconds()
                        + " s");
            }
            if (nodeId == null || nodeId.isBlank()) {
                throw ApiException.badRequest("node is required: send the node of the reservation");
            }
            NodeStatus node = nodes.known(nodeId);
            if (node == null) {
                throw new ApiException(ApiErrorCode.UNKNOWN_NODE, "node " + nodeId + " is not a known storage node");
            }
            String key = key(plan, id);
            if (uploadId != null) {
                Continuation continuation = reserved(plan, node, continues);
                uploads.completeUploaded(node, key, uploadId, continuation.sharedBytes(),
                        plan.totalBytes() - continuation.sharedBytes());
                List<NodeStatus> copies = new ArrayList<>(List.of(node));
                for (NodeStatus other : continuations.otherCopies(continuation, plan.totalBytes())) {
                    try {
                        uploads.copyTo(continuation, node, other, key, plan.pinned(), plan.totalBytes());
                        copies.add(other);
                    } catch (ApiException e) {
                        LOG.warn("Copy of {} on {} not written ({}); the object has the other copies", key,
                                other.getNodeId(), e.getMessage());
                    }
                }
                StoreOutcome stored = commit(plan, id, copies, key, continuation);
                outcome = "continued";
                return stored;
            }
            long size = uploadedSize(node, key);
            if (size != plan.totalBytes()) {
                throw new ApiException(ApiErrorCode.SIZE_MISMATCH, "the uploaded object has " + size
                        + " bytes; the layout says " + plan.totalBytes());
            }
            if (plan.pinned()) {
                pin(node, key);
            }
            List<NodeStatus> copies = new ArrayList<>(List.of(node));
            if (placement.replicas() > 1) {
                copies.addAll(copyWrites.copy(node, sameBucket(node, placement.chooseCopies(id, size,
                        placement.replicas() - 1, node.getNodeId())), storage.bucket(node), key, size,
                        plan.pinned()));
            }
            StoreOutcome stored = commit(plan, id, copies, key, null);
            outcome = "stored";
            return stored;
        } catch (ApiException e) {
            outcome = failed(e);
            throw e;
        } finally {
            metrics.store(plan.reason().tag(), outcome, System.nanoTime() - start);
        }
    }

    /** The continuation a reservation started: its parent as named in the commit, still known to this replica. */
    private Continuation reserved(StorePlan plan, NodeStatus node, String parentId) {
        if (plan.fromBlock() == 0 || parentId == null) {
            throw ApiException.badRequest("a commit with uploadId continues an object: send fromBlock and continues"
                    + " as the reservation answered");
        }
        ObjectId parent = ObjectIds.parse(parentId);
        ObjectRecord record = stores.object(parent);
        if (record == null) {
            throw new ApiException(ApiErrorCode.CONTINUATION_EXPIRED, "the object " + parentId + " this reservation"
                    + " continues is gone; reserve again");
        }
        return new Continuation(parent, record, List.of(node), plan.fromBlock(), plan.bytesOf(plan.fromBlock()));
    }

    /**
     * The outcome label of a store that ended in {@code e}: {@code unavailable} for 409 ContinuationUnavailable (the
     * parent went; the engine then sends the whole prompt, a store of its own), else {@code failed}.
     */
    private static String failed(ApiException e) {
        return e.code() == ApiErrorCode.CONTINUATION_UNAVAILABLE ? "unavailable" : "failed";
    }

    private ApiException unavailable(StorePlan plan) {
        return new ApiException(ApiErrorCode.CONTINUATION_UNAVAILABLE, "no live object holds the first "
                + plan.fromBlock() + " blocks on a live node with room any more (evicted, or its node is full or"
                + " gone): store the whole prompt (fromBlock 0)");
    }

    /** The nodes of a new object's copies ({@code store.replicas}), the first one first; 503 if there is none. */
    private List<NodeStatus> place(ObjectId id, long bytes) {
        if (bytes > config.store().maxObjectBytes()) {
            throw new ApiException(ApiErrorCode.OBJECT_TOO_LARGE, "the object has " + bytes + " bytes; at most "
                    + config.store().maxObjectBytes() + " (promptcache.index.store.max-object-bytes)");
        }
        List<NodeStatus> copies = sameBucket(null, placement.chooseCopies(id, bytes, placement.replicas(), null));
        if (copies.isEmpty()) {
            throw new ApiException(ApiErrorCode.NO_STORAGE_NODE, "no live storage node can hold " + bytes
                    + " bytes (" + placement.liveNodes().size() + " live)");
        }
        return copies;
    }

    /**
     * The nodes of {@code nodes} that write to the bucket of {@code first} (or of the first of them): an object's
     * record names one bucket for all its copies.
     */
    private List<NodeStatus> sameBucket(NodeStatus first, List<NodeStatus> nodes) {
        if (nodes.isEmpty()) {
            return nodes;
        }
        String bucket = storage.bucket(first != null ? first : nodes.get(0));
        return nodes.stream().filter(n -> storage.bucket(n).equals(bucket)).toList();
    }

    private List<NodeStatus> put(List<NodeStatus> copies, String key, InputStream body, long bytes, boolean pinned) {
        try {
            return copyWrites.put(copies, key, body, bytes, pinned);
        } catch (StorageCallException e) {
            throw StorageFailures.nodeFailed(e);
        }
    }

    private void pin(NodeStatus node, String key) {
        try {
            storage.pin(node, key);
        } catch (StorageCallException e) {
            throw StorageFailures.nodeFailed(e);
        }
    }

    private long uploadedSize(NodeStatus node, String key) {
        try {
            return storage.size(node, storage.bucket(node), key);
        } catch (StorageCallException e) {
            if (e.kind() == StorageCallException.Kind.NOT_FOUND) {
                throw new ApiException(ApiErrorCode.NOT_UPLOADED, "nothing was PUT to the reservation's URL on node "
                        + node.getNodeId() + " yet");
            }
            throw StorageFailures.nodeFailed(e);
        }
    }

    /**
     * The store's {@link StoreRecords} (its ObjectRecord LIVE, listing the keys of the blocks whose bytes it wrote:
     * one record, sent without a transaction; with ADVERTISEs, one transaction); then visible to this replica.
     */
    private StoreOutcome commit(StorePlan plan, ObjectId id, List<NodeStatus> copies, String key,
            Continuation continuation) {
        NodeStatus node = copies.get(0);
        String owner = plan.owner() != null ? plan.owner() : producers.instanceId();
        StoreRecords written = StoreRecords.of(plan, id.toString(), copies.stream().map(NodeStatus::getNodeId)
                .toList(), storage.bucket(node), key, continuation, owner, System.currentTimeMillis(),
                config.store().advertiseKeys());
        registration.publish(id, written, copies, key);
        // read-your-writes here, without waiting for the log
        stores.committed(id, written.own(), written.entries());
        metrics.published(written.records(), written.entries().size());
        return new StoreOutcome(id.toString(), false, node.getNodeId(), plan.blocks(),
                plan.blocks() * plan.spec().blockSize(), plan.totalBytes(),
                continuation == null ? null : continuation.parentId().toString(),
                continuation == null ? null : continuation.sharedBytes());
    }

    /** Records the phase that began at {@code since}; returns now (the next phase's start). */
    private long timed(StorePhase phase, long since) {
        long now = System.nanoTime();
        metrics.storePhase(phase, now - since);
        return now;
    }

    /**
     * Readies {@code node} for stores before the first one: its bucket exists (created if not) and the S3 client's
     * path to it is initialized.
     *
     * @throws ApiException 503 when the node cannot be reached or refuses the bucket
     */
    public void prepare(NodeStatus node) {
        try {
            storage.prepare(node);
        } catch (StorageCallException e) {
            throw StorageFailures.nodeFailed(e);
        }
    }

    private static String key(StorePlan plan, ObjectId id) {
        return ObjectKey.of(plan.spec().id(), id);
    }

    private static String emptyToNull(String s) {
        return s.isEmpty() ? null : s;
    }

    /** Reads past body bytes the continuation shares anyway (the engine sent more than it had to). */
    private static void skip(InputStream body, long bytes) {
        if (bytes <= 0) {
            return;
        }
        try {
            body.skipNBytes(bytes);
        } catch (IOException e) {
            throw ApiException.badRequest("the store body ended early: " + e.getMessage());
        }
    }

    private static void drain(InputStream body) {
        try {
            body.transferTo(OutputStream.nullOutputStream());
        } catch (IOException e) {
            LOG.debug("draining a deduplicated store body: {}", e);
        }
    }
}
