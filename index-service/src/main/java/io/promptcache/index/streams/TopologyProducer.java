package io.promptcache.index.streams;

import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.state.Stores;

import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.CompactedTopicUpdater;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

/**
 * The replica's materialized state: three global stores on RocksDB, each a full copy of a compacted topic -
 * PrefixMap ({@code prefixes}, plus the entries derived from object records: {@link DerivedKeys}), ObjectTable
 * ({@code objects}, with the in-memory {@link Sharers} derived from it) and registered namespaces ({@code namespaces}). Node heartbeats are read apart from them (NodeFeed). A null value
 * removes the key. Unreadable records go to {@code dead-letters} (the deserialization handler) and the stream
 * keeps running. The stores are {@link ConcurrentReadStore}s: lookups read them without queueing on a lock behind the
 * global stream thread's writes.
 */
@ApplicationScoped
public class TopologyProducer {

    public static final String PREFIX_MAP = "prefix-map";
    public static final String OBJECT_TABLE = "object-table";
    public static final String KEY_PAGES = "key-pages";
    public static final String NAMESPACE_TABLE = "namespace-table";

    @Inject
    TopicCatalog catalog;

    @Inject
    IndexMetrics metrics;

    @Inject
    Sharers sharers;

    @Produces
    public Topology topology() {
        return build(catalog, entry -> metrics.advertiseVisible(entry.getAdvertisedAtMs()),
                sharers);
    }

    /**
     * The topology, without CDI (tests drive it with a {@code TopologyTestDriver}).
     *
     * @param catalog the topic names
     * @param onAdvertised told of every ADVERTISE put into the PrefixMap and of the first key of every record whose
     *        keys it lists (the advertise-to-visible metric)
     * @param sharers kept in step with the ObjectTable
     */
    public static Topology build(TopicCatalog catalog, Consumer<PrefixEntry> onAdvertised, Sharers sharers) {
        StreamsBuilder builder = new StreamsBuilder();
        // the PrefixMap first: the ObjectTable's processor writes the entries derived from records into it, restores
        // included (global stores are registered, and restored, in this order)
        globalStore(builder, catalog, PREFIX_MAP, Topics.PREFIXES, () -> new PrefixMapUpdater(PREFIX_MAP,
                onAdvertised));
        PendingPages pending = new PendingPages(); // the global thread's, shared by the two processors
        globalStore(builder, catalog, OBJECT_TABLE, Topics.OBJECTS,
                () -> new ObjectTableUpdater(OBJECT_TABLE, PREFIX_MAP, KEY_PAGES, sharers, pending, onAdvertised));
        // the key pages after the ObjectTable: a record restored before its pages waits for them (PendingPages), and
        // the pages' processor derives it when they come (docs/architecture.md, "Key pages")
        globalStore(builder, catalog, KEY_PAGES, Topics.OBJECT_KEYS,
                () -> new KeyPagesUpdater(KEY_PAGES, OBJECT_TABLE, PREFIX_MAP, pending, onAdvertised));
        globalStore(builder, catalog, NAMESPACE_TABLE, Topics.NAMESPACES,
                () -> new CompactedTopicUpdater<>(NAMESPACE_TABLE));
        return builder.build();
    }

    private static <K, V> void globalStore(StreamsBuilder builder, TopicCatalog catalog, String store,
            TopicSpec<K, V> topic, ProcessorSupplier<K, V, Void, Void> processor) {
        builder.addGlobalStore(Stores.keyValueStoreBuilder(ConcurrentReadStore.supplier(store), topic.keySerde(),
                topic.valueSerde()).withLoggingDisabled(), catalog.name(topic),
                Consumed.with(topic.keySerde(), topic.valueSerde()), processor);
    }
}
