package io.promptcache.gc.streams;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

import io.promptcache.gc.budget.BookProgress;
import io.promptcache.gc.budget.BudgetInput;
import io.promptcache.gc.budget.BudgetProcessor;
import io.promptcache.gc.budget.KafkaBookProgress;
import io.promptcache.gc.budget.OrphanSweep;
import io.promptcache.gc.ledger.DeleteSchedule;
import io.promptcache.gc.ledger.LedgerEvent;
import io.promptcache.gc.ledger.LedgerOutput;
import io.promptcache.gc.ledger.LedgerProcessor;
import io.promptcache.gc.ledger.PhaseTwo;
import io.promptcache.gc.ledger.PrefixOwnersProcessor;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.storage.NodeTable;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.serde.UnreadableRecordException;
import io.promptcache.schema.topic.CompactedTopicUpdater;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * The gc-processor topology, three sub-topologies:
 * <ol>
 * <li>{@code prefixes} (by prefix key) -> {@link PrefixOwnersProcessor} -> reference changes re-keyed by object id
 * (internal topic {@value #REFS_TOPIC});</li>
 * <li>{@code objects} + {@code access} + reference changes (all by object id, co-partitioned) ->
 * {@link LedgerProcessor}: phase two (DELETE), the prefix keys of a removed object nulled, summaries to the
 * internal topic {@value #BUDGET_TOPIC} (one partition);</li>
 * <li>summaries + {@code reclaims} (re-keyed by object id into the one-partition internal topic
 * {@value #RECLAIMS_TOPIC}) -> {@link BudgetProcessor}: byte budgets, TTL, orphan sweep, what nodes deleted on their
 * own; its tombstones, and the nulls of deleted objects whose bytes no LIVE object reads, go to {@code objects} and
 * come back to sub-topology 2.</li>
 * </ol>
 * Every processor can read the global store {@link NodeTable#STORE} (a copy of {@code nodes}).
 */
@ApplicationScoped
public class TopologyProducer {

    /** Name (suffix) of the repartition topic of reference changes. */
    public static final String REFS_TOPIC = "prefix-refs";
    /** Name (suffix) of the one-partition repartition topic of summaries. */
    public static final String BUDGET_TOPIC = "budget";
    /** Name (suffix) of the one-partition repartition topic of {@code reclaims}, keyed by object id. */
    public static final String RECLAIMS_TOPIC = "budget-reclaims";

    /** Everything the topology needs besides its topics. */
    public record Settings(TopicCatalog catalog, BudgetProcessor.Settings budget, OrphanSweep.Settings orphans,
            BookProgress bookProgress, DeleteSchedule deletes, NodeLiveness liveness) {
    }

    @Inject
    TopicCatalog catalog;

    @Inject
    GcSettings settings;

    @Inject
    StorageOutbox outbox;

    @Inject
    GcMetrics metrics;

    @Inject
    KafkaBookProgress bookProgress;

    @Produces
    public Topology topology() {
        return build(settings.topology(catalog, bookProgress), outbox, metrics);
    }

    /** The production topology (tests build it here too). */
    public static Topology build(Settings settings, StorageOutbox outbox, GcMetrics metrics) {
        TopicCatalog catalog = settings.catalog();
        Serde<ObjectId> ids = Topics.OBJECTS.keySerde();
        GcStreamsBuilder builder = new GcStreamsBuilder();

        builder.addGlobalStore(
                Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(NodeTable.STORE), Topics.NODES.keySerde(),
                        Topics.NODES.valueSerde()).withLoggingDisabled(),
                catalog.name(Topics.NODES), Consumed.with(Topics.NODES.keySerde(), Topics.NODES.valueSerde()),
                () -> new CompactedTopicUpdater<NodeId, NodeStatus>(NodeTable.STORE));

        // the latest entry of every key of a partition of prefixes: the topic itself is the store's changelog
        // (docs/architecture.md, "PrefixOwners' store is the prefixes topic")
        builder.addStoreBackedBySource(store(PrefixOwnersProcessor.STORE, Topics.PREFIXES.keySerde(),
                Topics.PREFIXES.valueSerde()), catalog.name(Topics.PREFIXES));
        KStream<ObjectId, LedgerEvent> refs = builder
                .stream(catalog.name(Topics.PREFIXES), Consumed.with(Topics.PREFIXES.keySerde(),
                        Topics.PREFIXES.valueSerde()))
                .process(PrefixOwnersProcessor::new, PrefixOwnersProcessor.STORE)
                .repartition(Repartitioned.with(ids, GcSerdes.refChanged()).withName(REFS_TOPIC))
                .mapValues(ref -> ref);

        KStream<ObjectId, LedgerEvent> objects = builder
                .stream(catalog.name(Topics.OBJECTS), Consumed.with(ids, Topics.OBJECTS.valueSerde()))
                .mapValues(record -> new LedgerEvent.ObjectChanged(withinLimit(catalog, record)));
        KStream<ObjectId, LedgerEvent> access = builder
                .stream(catalog.name(Topics.ACCESS), Consumed.with(Topics.ACCESS.keySerde(),
                        Topics.ACCESS.valueSerde()))
                .filter((id, event) -> event != null).mapValues(LedgerEvent.Accessed::new);

        // cached: an object's entry is rewritten once per prefix reference its store adds (about 70 in a burst, all
        // within one commit interval); the cache keeps the latest, and RocksDB and the changelog get one write of it
        // per commit instead of one per reference (docs/benchmarks.md, "The ledger's cache")
        builder.addStateStore(store(LedgerProcessor.LEDGER, ids, GcSerdes.ledgerEntry()).withCachingEnabled());
        builder.addStateStore(store(LedgerProcessor.REFS, Serdes.Bytes(),
                Serdes.ByteArray()));
        builder.addStateStore(store(LedgerProcessor.DUE, Serdes.Bytes(),
                Serdes.ByteArray()));
        builder.addStateStore(store(LedgerProcessor.KEYS, ids, Topics.OBJECTS.valueSerde()));
        PhaseTwo.Factory phaseTwo = PhaseTwo.factory(outbox, settings.liveness(), settings.deletes(), metrics,
                settings.budget().externals());
        KStream<Void, LedgerOutput> out = objects.merge(access).merge(refs).process(
                () -> new LedgerProcessor(phaseTwo, metrics), LedgerProcessor.LEDGER, LedgerProcessor.REFS,
                LedgerProcessor.DUE, LedgerProcessor.KEYS);

        out.filter((k, o) -> o instanceof LedgerOutput.PrefixWrite)
                .map((k, o) -> KeyValue.pair(((LedgerOutput.PrefixWrite) o).key(), ((LedgerOutput.PrefixWrite) o)
                        .entry()))
                .to(catalog.name(Topics.PREFIXES), Produced.with(Topics.PREFIXES.keySerde(),
                        Topics.PREFIXES.valueSerde()));

        // the key pages of a removed object, after its record's null (docs/architecture.md, "Key pages")
        out.filter((k, o) -> o instanceof LedgerOutput.PageNull)
                .map((k, o) -> KeyValue.<KeyPageId, ObjectKeyPage> pair(((LedgerOutput.PageNull) o).page(), null))
                .to(catalog.name(Topics.OBJECT_KEYS), Produced.with(Topics.OBJECT_KEYS.keySerde(),
                        Topics.OBJECT_KEYS.valueSerde()));

        builder.addStateStore(store(BudgetProcessor.STORE, ids, GcSerdes.gcObject()));
        builder.addStateStore(store(BudgetProcessor.KEYS, ids, Topics.OBJECTS.valueSerde()));
        builder.addStateStore(store(BudgetProcessor.EARLY_RECLAIMS, Serdes.Bytes(), Topics.RECLAIMS.valueSerde()));
        OrphanSweep.Settings orphans = settings.orphans();
        KStream<ObjectId, BudgetInput> summaries = out.filter((k, o) -> o instanceof LedgerOutput.Summary)
                .map((k, o) -> KeyValue.pair(((LedgerOutput.Summary) o).id(), ((LedgerOutput.Summary) o).object()))
                .repartition(Repartitioned.with(ids, GcSerdes.gcObject()).withNumberOfPartitions(1)
                        .withName(BUDGET_TOPIC))
                .mapValues(BudgetInput.Summary::new);
        // a node's reclaims by object id, into the budget task (one partition, whatever the count of reclaims);
        // keys that are not promptcache's objects (ObjectKey) are not the GC's to tombstone
        KStream<ObjectId, BudgetInput> reclaims = builder
                .stream(catalog.name(Topics.RECLAIMS), Consumed.with(Topics.RECLAIMS.keySerde(),
                        Topics.RECLAIMS.valueSerde()))
                .filter((node, reclaim) -> reclaim != null && ObjectKey.objectId(reclaim.getKey()) != null)
                .map((node, reclaim) -> KeyValue.pair(ObjectKey.objectId(reclaim.getKey()), reclaim))
                .repartition(Repartitioned.with(ids, Topics.RECLAIMS.valueSerde()).withNumberOfPartitions(1)
                        .withName(RECLAIMS_TOPIC))
                .mapValues(BudgetInput.Reclaimed::new);
        summaries.merge(reclaims)
                .process(() -> new BudgetProcessor(settings.budget(),
                        new OrphanSweep(orphans, outbox, settings.bookProgress(), settings.liveness(), metrics), outbox,
                        metrics),
                        BudgetProcessor.STORE, BudgetProcessor.KEYS, BudgetProcessor.EARLY_RECLAIMS)
                .to(catalog.name(Topics.OBJECTS), Produced.with(ids, Topics.OBJECTS.valueSerde()));
        return builder.build();
    }

    /**
     * {@code record}, or a throw (the processing handler sends the record to {@code dead-letters} and the stream goes
     * on) when it is larger than a service writes: what the GC would make of it (its summary, its tombstone, its
     * ledger entry) could not be written, and under exactly-once a write that fails fails the stream thread.
     */
    static ObjectRecord withinLimit(TopicCatalog catalog, ObjectRecord record) {
        if (record != null && record.getSerializedSize() > Topics.MAX_WRITTEN_RECORD_BYTES) {
            throw new UnreadableRecordException(catalog.name(Topics.OBJECTS), "value", "a record of "
                    + record.getSerializedSize() + " bytes, over the " + Topics.MAX_WRITTEN_RECORD_BYTES
                    + " a service writes: the GC could not write what it makes of it", null);
        }
        return record;
    }

    private static <K, V> StoreBuilder<KeyValueStore<K, V>> store(String name, Serde<K> keys, Serde<V> values) {
        return Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), keys, values);
    }
}
