package io.promptcache.index.streams;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Keeps the key-pages store a copy of {@code object-keys} (docs/architecture.md, "Key pages"), and the PrefixMap
 * entries derived from paged records in step with it: the last page a record the ObjectTable already holds waited for
 * ({@link PendingPages}: the record came first, two topics, no order between them; and at a restore, where this store
 * is restored after the ObjectTable) derives the record's entries, and a page about to go unlists the anchors it
 * holds.
 */
final class KeyPagesUpdater implements Processor<KeyPageId, ObjectKeyPage, Void, Void> {

    private final String storeName;
    private final String objectTableName;
    private final String prefixMapName;
    private final Consumer<PrefixEntry> onListed;
    private final PendingPages pending;
    private ProcessorContext<Void, Void> context;
    private KeyValueStore<KeyPageId, ObjectKeyPage> store;
    private KeyValueStore<ObjectId, ObjectRecord> table;
    private DerivedKeys derived;

    KeyPagesUpdater(String storeName, String objectTableName, String prefixMapName, PendingPages pending,
            Consumer<PrefixEntry> onListed) {
        this.pending = pending;
        this.storeName = storeName;
        this.objectTableName = objectTableName;
        this.prefixMapName = prefixMapName;
        this.onListed = onListed;
    }

    @Override
    public void init(ProcessorContext<Void, Void> context) {
        this.context = context;
        store = context.getStateStore(storeName);
        KeyValueStore<PrefixKey, PrefixEntry> map = context.getStateStore(prefixMapName);
        derived = new DerivedKeys(map, KeyPagesUpdater.pages(store), pending, onListed);
    }

    @Override
    public void process(Record<KeyPageId, ObjectKeyPage> record) {
        KeyPageId id = record.key();
        if (id == null) {
            return;
        }
        if (record.value() == null) {
            ObjectRecord object = object(id.object());
            if (object != null) {
                derived.pageRemoved(id.object(), object, id.page());
            }
            store.put(id, null);
            return;
        }
        store.put(id, record.value());
        if (pending.arrived(id)) {
            // the last page its record waited for: the record is listed now
            ObjectRecord object = object(id.object());
            if (object != null) {
                derived.changed(id.object(), null, object);
            }
        }
    }

    /** The object's record in the ObjectTable, or null (none, unreadable, or the table not open: restoring). */
    private ObjectRecord object(ObjectId id) {
        if (table == null) {
            try {
                table = context.getStateStore(objectTableName);
            } catch (RuntimeException e) {
                return null;
            }
            if (table == null) {
                return null;
            }
        }
        try {
            return table.get(id);
        } catch (SerializationException e) {
            return null;
        }
    }

    /** The pages in {@code store} (a value that cannot be read counts as missing). */
    static WrittenKeys.Pages pages(KeyValueStore<KeyPageId, ObjectKeyPage> store) {
        return pages(() -> store);
    }

    /**
     * The pages in the store {@code store} gives once it is open (none before: a page of a store not open yet counts
     * as missing, as one that cannot be read does).
     */
    static WrittenKeys.Pages pages(Supplier<KeyValueStore<KeyPageId, ObjectKeyPage>> store) {
        AtomicReference<KeyValueStore<KeyPageId, ObjectKeyPage>> open = new AtomicReference<>();
        return id -> {
            KeyValueStore<KeyPageId, ObjectKeyPage> pages = open.get();
            if (pages == null) {
                try {
                    pages = store.get();
                } catch (RuntimeException e) {
                    return null;
                }
                if (pages == null) {
                    return null;
                }
                open.set(pages);
            }
            try {
                return pages.get(id);
            } catch (SerializationException e) {
                return null;
            }
        };
    }
}
