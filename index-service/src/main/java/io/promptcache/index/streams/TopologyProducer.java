package io.promptcache.index.streams;

import java.util.function.Consumer;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;

import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

/**
 * The replica's materialized state: four global stores on RocksDB, each a full copy of a compacted topic -
 * PrefixMap ({@code prefixes}), ObjectTable ({@code objects}), storage nodes ({@code nodes}) and registered
 * namespaces ({@code namespaces}). A null value
 * removes the key. Unreadable records go to {@code dead-letters} (the deserialization handler) and the stream
 * keeps running.
 */
@ApplicationScoped
public class TopologyProducer {

    public static final String PREFIX_MAP = "prefix-map";
    public static final String OBJECT_TABLE = "object-table";
    public static final String NODE_TABLE = "node-table";
    public static final String NAMESPACE_TABLE = "namespace-table";

    @ConfigProperty(name = TopicCatalog.PREFIX_CONFIG_KEY, defaultValue = TopicCatalog.DEFAULT_PREFIX)
    String topicPrefix;

    @Inject
    IndexMetrics metrics;

    @Produces
    public Topology topology() {
        TopicCatalog catalog = new TopicCatalog(topicPrefix);
        StreamsBuilder builder = new StreamsBuilder();
        globalStore(builder, catalog, PREFIX_MAP, Topics.PREFIXES,
                entry -> metrics.advertiseVisible(entry.getAdvertisedAtMs()));
        globalStore(builder, catalog, OBJECT_TABLE, Topics.OBJECTS, record -> {
        });
        globalStore(builder, catalog, NODE_TABLE, Topics.NODES, status -> {
        });
        globalStore(builder, catalog, NAMESPACE_TABLE, Topics.NAMESPACES, record -> {
        });
        return builder.build();
    }

    private static <K, V> void globalStore(StreamsBuilder builder, TopicCatalog catalog, String store,
            TopicSpec<K, V> topic, Consumer<V> onPut) {
        builder.addGlobalStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(store), topic.keySerde(),
                topic.valueSerde()).withLoggingDisabled(), catalog.name(topic),
                Consumed.with(topic.keySerde(), topic.valueSerde()), () -> new StoreUpdater<K, V>(store, onPut));
    }

    /** Applies a compacted topic's records to its global store: a value is put, a null removes the key. */
    static final class StoreUpdater<K, V> implements Processor<K, V, Void, Void> {

        private final String storeName;
        private final Consumer<V> onPut;
        private KeyValueStore<K, V> store;

        StoreUpdater(String storeName, Consumer<V> onPut) {
            this.storeName = storeName;
            this.onPut = onPut;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            store = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<K, V> record) {
            if (record.key() == null) {
                return;
            }
            if (record.value() == null) {
                store.delete(record.key());
            } else {
                store.put(record.key(), record.value());
                onPut.accept(record.value());
            }
        }
    }
}
