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
import org.jboss.logging.Logger;

import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The budget keeper: one task (its input topic has one partition, so the cluster's byte counts live in exactly one
 * place and are never counted twice) that holds every object's summary, and on a wall-clock punctuator turns the
 * {@link BudgetBook#plan plan} into tombstones on {@code objects} (phase one is then carried out by the ledgers).
 * Store {@link #STORE}: object id -> {@link GcObject}; the in-memory book is rebuilt from it when the task starts,
 * on whichever instance it moves to.
 */
public final class BudgetProcessor implements Processor<ObjectId, GcObject, ObjectId, ObjectRecord> {

    public static final String STORE = "gc-budget";

    private static final Logger LOG = Logger.getLogger(BudgetProcessor.class);

    /**
     * What the keeper needs besides its input.
     *
     * @param policy the limits
     * @param grace the grace window each tombstone gets
     * @param interval how often the plan runs
     * @param deleteCheck how often phase two looks for due deletes (the delete lag assumed until one is seen)
     * @param instanceId written into the tombstones as {@code decided_by}
     */
    public record Settings(Policy policy, Duration grace, Duration interval, Duration deleteCheck,
            String instanceId) {
    }

    private final Settings settings;
    private final OrphanSweep sweep;
    private final GcMetrics metrics;
    private final BudgetBook book = new BudgetBook();
    private final Lag deleteLag;
    private final Lag arrivalLag = new Lag(0, 2_000);
    private ProcessorContext<ObjectId, ObjectRecord> context;
    private KeyValueStore<ObjectId, GcObject> store;
    private NodeTable nodes;

    public BudgetProcessor(Settings settings, OrphanSweep sweep, GcMetrics metrics) {
        this.settings = settings;
        this.sweep = sweep;
        this.metrics = metrics;
        this.deleteLag = new Lag(settings.deleteCheck().toMillis(), 10_000);
    }

    @Override
    public void init(ProcessorContext<ObjectId, ObjectRecord> ctx) {
        this.context = ctx;
        this.store = ctx.getStateStore(STORE);
        this.nodes = NodeTable.of(ctx);
        try (KeyValueIterator<ObjectId, GcObject> all = store.all()) {
            all.forEachRemaining(kv -> book.put(kv.key, kv.value));
        }
        LOG.infof("Budget keeper started with %d objects", book.size());
        ctx.schedule(settings.interval(), PunctuationType.WALL_CLOCK_TIME, this::enforce);
    }

    @Override
    public void process(Record<ObjectId, GcObject> record) {
        ObjectId id = record.key();
        if (id == null) {
            return;
        }
        if (record.value() == null) {
            GcObject removed = book.get(id);
            if (removed != null && !removed.live() && removed.record().getTombstone().getDeleteAfterMs() > 0) {
                deleteLag.observe(removed.record().getTombstone().getDeleteAfterMs(),
                        context.currentSystemTimeMs());
            }
            store.delete(id);
        } else {
            if (book.get(id) == null && record.value().live()) {
                arrivalLag.observe(record.value().record().getCreatedAtMs(), context.currentSystemTimeMs());
            }
            store.put(id, record.value());
        }
        book.put(id, record.value());
    }

    /** One round: plan, tombstone the victims, publish the usage, one step of the orphan sweep. */
    void enforce(long now) {
        Map<String, NodeStatus> heartbeats = nodes.all();
        long horizon = (settings.policy().reclaimOnDemand()
                ? 0
                : settings.grace().toMillis()
                        + deleteLag.estimateMs())
                + settings.interval().toMillis() + arrivalLag.estimateMs();
        List<Eviction> plan = book.plan(settings.policy(), heartbeats, now, horizon);
        long deleteAfter = now + settings.grace().toMillis();
        for (Eviction eviction : plan) {
            GcObject object = store.get(eviction.id());
            ObjectRecord tombstone = Tombstones.of(object.record(), eviction.reason(), deleteAfter,
                    settings.instanceId());
            GcObject retired = new GcObject(tombstone, object.lastAccessMs(), object.superseded());
            store.put(eviction.id(), retired);
            book.put(eviction.id(), retired);
            context.forward(new Record<>(eviction.id(), tombstone, now));
            metrics.tombstoned(eviction.reason());
        }
        if (!plan.isEmpty()) {
            LOG.debugf("Tombstoned %d objects: %s", plan.size(), plan);
        }
        metrics.usage(book.usage(), limits(heartbeats));
        sweep.step(now, heartbeats, id -> book.get(id) != null);
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
