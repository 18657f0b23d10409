package io.promptcache.index.streams;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * Keeps the ObjectTable a copy of {@code objects} (a null removes the key) and {@link Sharers} in step with it. Kafka
 * Streams restores a global store before it initializes its processor, so {@link #init} rebuilds the sharers from
 * the restored table and every later record updates both.
 */
final class ObjectTableUpdater implements Processor<ObjectId, ObjectRecord, Void, Void> {

    private final String storeName;
    private final Sharers sharers;
    private KeyValueStore<ObjectId, ObjectRecord> store;

    ObjectTableUpdater(String storeName, Sharers sharers) {
        this.storeName = storeName;
        this.sharers = sharers;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
        sharers.clear();
        try (KeyValueIterator<ObjectId, ObjectRecord> all = store.all()) {
            while (all.hasNext()) {
                try {
                    KeyValue<ObjectId, ObjectRecord> next = all.next();
                    sharers.put(next.key.toString(), next.value);
                } catch (SerializationException e) {
                    // a poison value copied in by a restore (it bypasses the deserialization handler): never served
                }
            }
        }
    }

    @Override
    public void process(Record<ObjectId, ObjectRecord> record) {
        ObjectId id = record.key();
        if (id == null) {
            return;
        }
        ObjectRecord before;
        try {
            before = store.get(id);
        } catch (SerializationException e) {
            before = null;
        }
        store.put(id, record.value()); // a null value deletes (without decoding the old one, as delete would)
        sharers.changed(id.toString(), before, record.value());
    }
}
