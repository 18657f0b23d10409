package io.promptcache.schema.topic;

import java.util.function.Consumer;

import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * Keeps a Kafka Streams key-value store (typically a global store) a copy of a compacted topic: a value is put, a
 * null value removes the key, a record without a key is ignored. Every service that materializes a compacted topic
 * uses this one processor.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class CompactedTopicUpdater<K, V> implements Processor<K, V, Void, Void> {

    private final String storeName;
    private final Consumer<V> onPut;
    private KeyValueStore<K, V> store;

    /**
     * @param storeName the store to keep
     * @param onPut called with every value put (e.g. a metric), on the stream thread
     */
    public CompactedTopicUpdater(String storeName, Consumer<V> onPut) {
        this.storeName = storeName;
        this.onPut = onPut;
    }

    /** An updater with nothing to do on put. */
    public CompactedTopicUpdater(String storeName) {
        this(storeName, value -> {
        });
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
