package io.promptcache.index.streams;

import java.util.function.Consumer;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Keeps the PrefixMap a copy of {@code prefixes} (ADVERTISEs of earlier builds, and of an index that still publishes
 * them: a value is put, a null removes the key) except for keys whose entry is derived from object records
 * ({@link DerivedKeys}): those belong to the records, and an ADVERTISE or a null of such a key is dropped (records of
 * two builds mixing: a shorter or other valid match at worst; docs/architecture.md, "Keys from the object record").
 */
final class PrefixMapUpdater implements Processor<PrefixKey, PrefixEntry, Void, Void> {

    private final String storeName;
    private final Consumer<PrefixEntry> onPut;
    private KeyValueStore<PrefixKey, PrefixEntry> store;

    PrefixMapUpdater(String storeName, Consumer<PrefixEntry> onPut) {
        this.storeName = storeName;
        this.onPut = onPut;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
    }

    @Override
    public void process(Record<PrefixKey, PrefixEntry> record) {
        if (record.key() == null || derived(record.key())) {
            return;
        }
        if (record.value() == null) {
            store.put(record.key(), null); // a delete that does not decode the old value again
        } else {
            store.put(record.key(), record.value());
            onPut.accept(record.value());
        }
    }

    private boolean derived(PrefixKey key) {
        try {
            PrefixEntry current = store.get(key);
            return current != null && current.getFromRecords();
        } catch (SerializationException e) {
            return false;
        }
    }
}
