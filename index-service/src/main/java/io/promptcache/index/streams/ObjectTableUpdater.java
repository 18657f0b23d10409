package io.promptcache.index.streams;

import java.util.function.Consumer;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Keeps the ObjectTable a copy of {@code objects} (a null removes the key), and in step with it {@link Sharers} and
 * the PrefixMap entries of keys that exist only in their records ({@link DerivedKeys}). A later record of an object
 * that lists no keys is kept with the keys of the one before it, so that its null still finds them. Kafka Streams
 * restores a global store through its processor (a processor of its own, from the store's checkpoint) before it
 * initializes this one, so {@link #init} rebuilds the sharers from the restored table and every later record updates
 * all three. The PrefixMap is registered before the ObjectTable (the topology's order), so it is open here, restores
 * included; the key pages after it: a record whose pages are not all here yet is derived when they come
 * ({@link KeyPagesUpdater}).
 */
final class ObjectTableUpdater implements Processor<ObjectId, ObjectRecord, Void, Void> {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectTableUpdater.class);

    private final String storeName;
    private final String prefixMapName;
    private final String keyPagesName;
    private final Sharers sharers;
    private final PendingPages pending;
    private final Consumer<PrefixEntry> onListed;
    private KeyValueStore<ObjectId, ObjectRecord> store;
    private DerivedKeys derived;

    /**
     * @param onListed told of the first entry of every record whose keys it lists (the advertise-to-visible metric)
     */
    ObjectTableUpdater(String storeName, String prefixMapName, String keyPagesName, Sharers sharers,
            PendingPages pending, Consumer<PrefixEntry> onListed) {
        this.pending = pending;
        this.storeName = storeName;
        this.prefixMapName = prefixMapName;
        this.keyPagesName = keyPagesName;
        this.sharers = sharers;
        this.onListed = onListed;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        store = context.getStateStore(storeName);
        KeyValueStore<PrefixKey, PrefixEntry> map = context.getStateStore(prefixMapName);
        // the key pages are registered after this store: not open yet while this one restores (a paged record then
        // waits for its pages), open from the replica's start on
        derived = new DerivedKeys(map, KeyPagesUpdater.pages(() -> context.getStateStore(keyPagesName)), pending,
                onListed);
        PrefixEntry stamp = derived.read(MapLayout.STAMP_KEY);
        boolean rebuild = !MapLayout.current().equals(stamp);
        if (rebuild) {
            // wiped and restored from prefixes (no stamp), or derived by a build of another layout: derive again
            LOG.info("PrefixMap layout stamp {} (this build: {}): deriving its entries from the ObjectTable again",
                    MapLayout.describe(stamp), MapLayout.describe(MapLayout.current()));
            if (stamp != null) {
                derived.removeAll();
            }
        }
        sharers.clear();
        long relisted = 0;
        try (KeyValueIterator<ObjectId, ObjectRecord> all = store.all()) {
            while (all.hasNext()) {
                try {
                    KeyValue<ObjectId, ObjectRecord> next = all.next();
                    sharers.put(next.key.toString(), next.value);
                    // a record restored into the table without passing here (a restore copies bytes) is derived now
                    if (rebuild || !derived.listed(next.key, next.value)) {
                        derived.changed(next.key, null, next.value);
                        relisted++;
                    }
                } catch (SerializationException e) {
                    // a poison value copied in by a restore (it bypasses the deserialization handler): never served
                }
            }
        }
        if (relisted > 0) {
            LOG.info("Derived the PrefixMap entries of {} objects at start", relisted);
        }
        map.put(MapLayout.STAMP_KEY, MapLayout.current());
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
        ObjectRecord after = WrittenKeys.keep(before, record.value());
        store.put(id, after); // a null value deletes (without decoding the old one, as delete would)
        sharers.changed(id.toString(), before, after);
        derived.changed(id, before, after);
    }
}
