package io.promptcache.gc.budget;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.policy.BudgetBook;
import io.promptcache.gc.policy.Eviction;
import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.GcObject;
import io.promptcache.gc.policy.Nomination;
import io.promptcache.gc.policy.Policy;
import io.promptcache.gc.storage.Mailbox;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.object.Tombstones;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.Reclaim;
import io.promptcache.schema.proto.ReclaimedObject;
import io.promptcache.schema.proto.TombstoneReason;

/**
 * The budget keeper: one task (its input topic has one partition, so the cluster's byte counts live in exactly one
 * place and are never counted twice) that holds every object's summary, and on a wall-clock punctuator turns the
 * {@link BudgetBook#plan plan} into tombstones on {@code objects} (phase one is then carried out by the ledgers),
 * marks the {@link BudgetBook#nominate eviction candidates} on nodes that reclaim on demand, and tombstones the
 * objects those nodes say they deleted on their own ({@code reclaims} records, read in the same task: at once).
 * Store {@link #STORE}: object id -> {@link GcObject}; the in-memory book is rebuilt from it when the task starts,
 * on whichever instance it moves to.
 */
public final class BudgetProcessor implements Processor<ObjectId, BudgetInput, ObjectId, ObjectRecord> {

    public static final String STORE = "gc-budget";
    /**
     * Object id -> its record as its first summary brought it, listing its keys (written once; the book and
     * {@link #STORE} hold the records without them).
     */
    public static final String KEYS = "gc-budget-keys";
    /** Reclaims that came before their object's first summary ({@link EarlyReclaims}). */
    public static final String EARLY_RECLAIMS = EarlyReclaims.STORE;

    private static final Logger LOG = LoggerFactory.getLogger(BudgetProcessor.class);

    /**
     * What the keeper needs besides its input.
     *
     * @param policy the limits
     * @param grace the grace window each tombstone gets
     * @param interval how often the plan runs
     * @param deleteCheck how often phase two looks for due deletes (the delete lag assumed until one is seen)
     * @param instanceId written into the tombstones as {@code decided_by}
     * @param externals the configured external S3 endpoints by node id ({@link NodeTable})
     * @param eviction the eviction policy's name ({@link EvictionPolicy#named})
     */
    public record Settings(Policy policy, Duration grace, Duration interval, Duration deleteCheck,
            String instanceId, Map<String, NodeStatus> externals, String eviction) {

        public Settings(Policy policy, Duration grace, Duration interval, Duration deleteCheck, String instanceId,
                Map<String, NodeStatus> externals) {
            this(policy, grace, interval, deleteCheck, instanceId, externals, "lru");
        }
    }

    /** Eviction candidates marked on nodes per round at most. */
    static final int MAX_NOMINATIONS = 256;

    private final Settings settings;
    private final OrphanSweep sweep;
    private final StorageOutbox outbox;
    private Mailbox mailbox;
    private final GcMetrics metrics;
    private final BudgetBook book;
    /** Whether the policy learns from uses (not LRU): a hit is then a use of every object whose bytes it reads. */
    private final boolean learns;
    private final Lag deleteLag;
    private final Lag arrivalLag = new Lag(0, 2_000);
    private ProcessorContext<ObjectId, ObjectRecord> context;
    private KeyValueStore<ObjectId, GcObject> store;
    private KeyValueStore<ObjectId, ObjectRecord> keys;
    private EarlyReclaims early;
    private NodeTable nodes;

    public BudgetProcessor(Settings settings, OrphanSweep sweep, StorageOutbox outbox, GcMetrics metrics) {
        this.settings = settings;
        this.sweep = sweep;
        this.outbox = outbox;
        this.metrics = metrics;
        this.deleteLag = new Lag(settings.deleteCheck().toMillis(), 10_000);
        // no trims yet: the index, the storage node and the object-trims topic do not carry them (docs/architecture.md,
        // "Trimming an object")
        EvictionPolicy eviction = EvictionPolicy.named(settings.eviction(), false);
        this.book = new BudgetBook(eviction);
        this.learns = eviction != EvictionPolicy.LRU;
    }

    @Override
    public void init(ProcessorContext<ObjectId, ObjectRecord> ctx) {
        this.context = ctx;
        this.store = ctx.getStateStore(STORE);
        this.keys = ctx.getStateStore(KEYS);
        this.early = new EarlyReclaims(ctx.getStateStore(EARLY_RECLAIMS));
        this.nodes = NodeTable.of(ctx, settings.externals());
        this.mailbox = outbox.mailbox();
        try (KeyValueIterator<ObjectId, GcObject> all = store.all()) {
            all.forEachRemaining(kv -> book.put(kv.key, kv.value));
        }
        LOG.info("Budget keeper started with {} objects", book.size());
        ctx.schedule(settings.interval(), PunctuationType.WALL_CLOCK_TIME, this::enforce);
    }

    @Override
    public void process(Record<ObjectId, BudgetInput> record) {
        ObjectId id = record.key();
        if (id == null || record.value() == null) {
            return;
        }
        if (record.value() instanceof BudgetInput.Reclaimed reclaimed) {
            reclaimed(id, reclaimed.reclaim());
        } else {
            summary(id, ((BudgetInput.Summary) record.value()).object());
        }
    }

    private void summary(ObjectId id, GcObject summary) {
        GcObject known = book.get(id);
        // a summary carries no uses, depth or new content: what the book learned of them stays (GcObject.learnedFrom)
        GcObject object = summary == null ? null : summary.learnedFrom(known);
        ObjectRecord listed = object == null ? null : object.record();
        long accessedAt = 0;
        if (learns && object != null && known != null && object.live()
                && object.lastAccessMs() > known.lastAccessMs()) {
            // an access: a hit of the whole object (an access record does not say how much was read), a use of it
            // and of the objects whose bytes it reads (BudgetBook.hit), applied below; under LRU, where uses do not
            // count, the object's last access alone moves (and no other entry is written)
            accessedAt = object.lastAccessMs();
            object = object.withLastAccess(known.lastAccessMs());
        }
        // a store write that changes nothing is still a changelog record: writes follow the book, which mirrors the
        // store (docs/architecture.md, "Fewer records from the GC")
        if (object == null) {
            if (known != null) {
                store.delete(id);
                keys.delete(id);
            }
        } else {
            if (WrittenKeys.inline(object.record())) {
                // an object's first summary: its keys are kept apart (its tombstones list them), once
                keys.put(id, object.record());
                object = object.with(WrittenKeys.without(object.record()), object.superseded());
            }
            if (known == null && object.live()) {
                arrivalLag.observe(object.record().getCreatedAtMs(), context.currentSystemTimeMs());
            }
            if (object.deleted() && known != null && !known.deleted()
                    && object.record().getTombstone().getDeleteAfterMs() > 0) {
                deleteLag.observe(object.record().getTombstone().getDeleteAfterMs(), context.currentSystemTimeMs());
            }
        }
        book.put(id, object, listed);
        if (accessedAt > 0) {
            for (ObjectId used : book.hit(id, accessedAt, object.record().getTotalBytes())) {
                if (!used.equals(id)) {
                    store.put(used, book.get(used));
                }
            }
        }
        if (object != null && !book.get(id).equals(known)) {
            store.put(id, book.get(id));
        }
        if (known == null && object != null) {
            for (Reclaim reclaim : early.take(id)) {
                gone(id, reclaim.getNodeId(), reclaim.getKey(), context.currentSystemTimeMs());
            }
        }
    }

    /** A node deleted {@code id} on its own: tombstoned if LIVE there, kept for later if not known yet. */
    private void reclaimed(ObjectId id, Reclaim reclaim) {
        if (book.get(id) == null) {
            early.keep(id, reclaim);
        } else {
            gone(id, reclaim.getNodeId(), reclaim.getKey(), context.currentSystemTimeMs());
        }
    }

    /**
     * One round: tombstone what nodes reclaimed, plan and tombstone the victims, nominate candidates, publish the
     * usage, one step of the orphan sweep.
     */
    void enforce(long now) {
        long started = System.nanoTime();
        mailbox.drain();
        Map<String, NodeStatus> heartbeats = nodes.all();
        heartbeats.forEach((node, status) -> listedReclaims(node, status, now));
        int expired = early.expire(now);
        if (expired > 0) {
            LOG.info("Dropped {} reclaims whose object never reached the budget keeper within {} min", expired,
                    EarlyReclaims.KEEP_MS / 60_000);
        }
        long horizon = (settings.policy().reclaimOnDemand()
                ? 0
                : settings.grace().toMillis()
                        + deleteLag.estimateMs())
                + settings.interval().toMillis() + arrivalLag.estimateMs();
        List<Eviction> plan = book.plan(settings.policy(), heartbeats, now, horizon);
        long deleteAfter = now + settings.grace().toMillis();
        for (Eviction eviction : plan) {
            tombstone(eviction.id(), eviction.reason(), deleteAfter, now);
        }
        if (!plan.isEmpty()) {
            LOG.debug("Tombstoned {} objects: {}", plan.size(), plan);
        }
        nominate(heartbeats, now);
        removeUnread(now);
        metrics.usage(book.usage(), limits(heartbeats));
        sweep.step(now, heartbeats, id -> book.get(id) != null);
        mailbox.drain(); // an outbox that calls at once (tests) completes within the round
        metrics.round(System.nanoTime() - started);
    }

    private void tombstone(ObjectId id, TombstoneReason reason, long deleteAfter, long now) {
        GcObject object = store.get(id);
        retire(id, object, Tombstones.of(listing(id, object), reason, deleteAfter, settings.instanceId()), reason,
                now);
    }

    /**
     * The record to tombstone: with the keys it lists, so that {@code objects} replayed (a reset GC) still names them.
     */
    private ObjectRecord listing(ObjectId id, GcObject object) {
        return WrittenKeys.keep(keys.get(id), object.record());
    }

    /** Tombstones {@code id}, which {@code node} no longer holds: due at once, and no DELETE is sent there. */
    private void goneFrom(ObjectId id, String node, long now) {
        GcObject object = store.get(id);
        TombstoneReason reason = TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET;
        retire(id, object, Tombstones.goneFrom(listing(id, object), node, reason, now, settings.instanceId()),
                reason, now);
    }

    private void retire(ObjectId id, GcObject object, ObjectRecord tombstone, TombstoneReason reason, long now) {
        GcObject retired = object.with(WrittenKeys.without(tombstone), object.superseded());
        store.put(id, retired);
        book.put(id, retired);
        context.forward(new Record<>(id, tombstone, now));
        metrics.tombstoned(reason);
    }

    /**
     * Nulls the records of deleted objects no LIVE object reads any byte of: their ledgers then null the prefix keys
     * still pointing to them. Until then those keys are served by the objects sharing the bytes.
     */
    private void removeUnread(long now) {
        for (ObjectId id : book.unread()) {
            store.delete(id);
            keys.delete(id);
            book.put(id, null);
            context.forward(new Record<>(id, null, now));
            metrics.removed();
        }
    }

    /**
     * Tombstones the objects an older node lists in its heartbeats as deleted for room (current nodes send them on
     * {@code reclaims}, read in {@link #process}); the same rule, so a list seen before is a no-op.
     */
    @SuppressWarnings("deprecation")
    private void listedReclaims(String node, NodeStatus status, long now) {
        for (ReclaimedObject listed : status.getReclaimedList()) {
            ObjectId id = ObjectKey.objectId(listed.getKey());
            if (id != null) {
                gone(id, node, listed.getKey(), now);
            }
        }
    }

    /**
     * Tombstones {@code id} if it is LIVE on {@code node} under {@code key}: the node deleted it for room (an eviction
     * candidate, or its own least recently used object when nothing marked was left), so lookups must stop returning
     * it. It is gone already: no grace window. Anything else (tombstoned already, another node's copy, another key)
     * is a no-op, so a duplicate or a replayed reclaim changes nothing.
     */
    private void gone(ObjectId id, String node, String key, long now) {
        GcObject object = book.get(id);
        if (object != null && object.live() && object.record().getKey().equals(key)
                && object.record().getNodesList().contains(node)) {
            goneFrom(id, node, now);
            metrics.reclaimedByNode();
        }
    }

    /**
     * Marks the new eviction candidates on their nodes (at most {@value #MAX_NOMINATIONS} a round), in the outbox: one
     * that is gone from its node already is tombstoned, one whose mark failed is nominated again later (both when the
     * outcome comes back, at a later round).
     */
    private void nominate(Map<String, NodeStatus> heartbeats, long now) {
        for (Nomination nomination : book.nominate(settings.policy(), heartbeats, MAX_NOMINATIONS)) {
            ObjectId id = nomination.id();
            ObjectRecord record = book.get(id).record();
            String endpoint = heartbeats.get(nomination.node()).getEndpoint();
            // the node deletes candidates by the last use the mark carries (its own reads moving it): the rank, last use
            // plus the policy's bonus, is that order (0 bonus under LRU)
            boolean asked = mailbox.submit(storage -> storage.markCandidate(endpoint, record.getBucket(),
                    record.getKey(), nomination.rankMs()), (present, failure) -> {
                        if (failure != null) {
                            book.unnominate(id);
                            LOG.debug("Could not nominate {} on node {}: {}", id, nomination.node(),
                                    failure.getMessage());
                        } else if (present) {
                            metrics.nominated();
                        } else {
                            GcObject current = book.get(id);
                            if (current != null && current.live()) {
                                goneFrom(id, nomination.node(), context.currentSystemTimeMs());
                            }
                        }
                    });
            if (!asked) {
                book.unnominate(id);
            }
        }
    }

    private Map<String, Long> limits(Map<String, NodeStatus> heartbeats) {
        Map<String, Long> limits = new HashMap<>();
        heartbeats.forEach((node, status) -> limits.put("node:" + node, status.getCapacityBytes()));
        settings.policy().tenantLimits().forEach((tenant, quota) -> limits.put("tenant:" + tenant, quota));
        return limits;
    }

    BudgetBook book() {
        return book;
    }
}
