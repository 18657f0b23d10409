package io.promptcache.index.streams;

import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import io.promptcache.index.lookup.PrefixIndex;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The lookup's view of the global stores. A value that cannot be decoded (a poison record copied in by a store
 * restore, which bypasses the deserialization handler) is treated as absent and counted, never served.
 */
@ApplicationScoped
public class StreamsPrefixIndex implements PrefixIndex {

    private final KafkaStreams streams;
    private final LongAdder unreadable = new LongAdder();
    private volatile ReadOnlyKeyValueStore<PrefixKey, PrefixEntry> prefixes;
    private volatile ReadOnlyKeyValueStore<ObjectId, ObjectRecord> objects;

    StreamsPrefixIndex(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public PrefixEntry prefix(PrefixKey key) {
        try {
            return prefixes().get(key);
        } catch (SerializationException e) {
            unreadable.increment();
            return null;
        }
    }

    @Override
    public boolean isLive(String objectId) {
        try {
            ObjectRecord record = objects().get(ObjectId.parse(objectId));
            return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE;
        } catch (SerializationException | IllegalArgumentException e) {
            unreadable.increment();
            return false;
        }
    }

    /** Store values that could not be decoded since start. */
    public long unreadableValues() {
        return unreadable.sum();
    }

    private ReadOnlyKeyValueStore<PrefixKey, PrefixEntry> prefixes() {
        if (prefixes == null) {
            prefixes = streams.store(StoreQueryParameters.fromNameAndType(TopologyProducer.PREFIX_MAP,
                    QueryableStoreTypes.keyValueStore()));
        }
        return prefixes;
    }

    private ReadOnlyKeyValueStore<ObjectId, ObjectRecord> objects() {
        if (objects == null) {
            objects = streams.store(StoreQueryParameters.fromNameAndType(TopologyProducer.OBJECT_TABLE,
                    QueryableStoreTypes.keyValueStore()));
        }
        return objects;
    }
}
