package io.promptcache.index.streams;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sharers of each writer, as the ObjectTable's processor keeps them: from records as they arrive, and rebuilt
 * from the restored table when the processor starts again (a replica restart replays nothing it restored).
 */
class SharersTest {

    private final ObjectId p = ObjectId.generate();
    private final ObjectId c = ObjectId.generate();
    private final ObjectId d = ObjectId.generate();
    private final ObjectRecord parent = live(300, null, 0);
    private final ObjectRecord child = live(500, parent, 200);
    private final ObjectRecord grandchild = live(600, child, 500);

    @Test
    void shouldFollowTheRecordsAndRebuildFromTheRestoredTable() {
        // Given: P (300 bytes), C sharing P's first 200 and writing 300, D sharing all of C
        Sharers sharers = new Sharers();
        KeyValueStore<ObjectId, ObjectRecord> table = table();
        ObjectTableUpdater updater = updater(sharers, table);
        put(updater, p, parent);
        put(updater, c, child);
        put(updater, d, grandchild);

        // Then: P's bytes up to 200 are in C and D; past 200 in nobody; C's bytes are in D
        assertThat(ids(sharers.reaching(p.toString(), 200))).containsExactlyInAnyOrder(c.toString(), d.toString());
        assertThat(ids(sharers.reaching(p.toString(), 201))).isEmpty();
        assertThat(ids(sharers.reaching(c.toString(), 500))).containsExactly(d.toString());

        // When: D is tombstoned, C nulled
        put(updater, d, grandchild.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build());
        put(updater, c, null);

        // Then: nobody shares P's or C's bytes any more
        assertThat(sharers.writers()).isZero();

        // When: C and D are LIVE again in the table and the processor starts over (a restart after restore)
        table.put(c, child);
        table.put(d, grandchild);
        Sharers restarted = new Sharers();
        updater(restarted, table);

        // Then: rebuilt from the table
        assertThat(ids(restarted.reaching(p.toString(), 150))).containsExactlyInAnyOrder(c.toString(),
                d.toString());
        assertThat(restarted.reaching(p.toString(), 150).next().reach()).isEqualTo(200);
    }

    private static ObjectTableUpdater updater(Sharers sharers, KeyValueStore<ObjectId, ObjectRecord> table) {
        MockProcessorContext<Void, Void> context = new MockProcessorContext<>();
        table.init(context.getStateStoreContext(), table);
        context.addStateStore(table);
        KeyValueStore<PrefixKey, PrefixEntry> prefixMap = Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("prefix-map"), Topics.PREFIXES.keySerde(), Topics.PREFIXES.valueSerde())
                .withLoggingDisabled().build();
        prefixMap.init(context.getStateStoreContext(), prefixMap);
        context.addStateStore(prefixMap);
        KeyValueStore<KeyPageId, ObjectKeyPage> pages = Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("key-pages"), Topics.OBJECT_KEYS.keySerde(),
                Topics.OBJECT_KEYS.valueSerde()).withLoggingDisabled().build();
        pages.init(context.getStateStoreContext(), pages);
        context.addStateStore(pages);
        ObjectTableUpdater updater = new ObjectTableUpdater("object-table", "prefix-map", "key-pages", sharers,
                new PendingPages(),
                entry -> {
                });
        updater.init(context);
        return updater;
    }

    private static KeyValueStore<ObjectId, ObjectRecord> table() {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("object-table"), Topics.OBJECTS.keySerde(),
                Topics.OBJECTS.valueSerde()).withLoggingDisabled().build();
    }

    private static void put(ObjectTableUpdater updater, ObjectId id, ObjectRecord record) {
        updater.process(new Record<>(id, record, 0L));
    }

    private ObjectRecord live(long total, ObjectRecord of, long shared) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(1)
                .setState(ObjectState.OBJECT_STATE_LIVE).setTotalBytes(total).addNodes("n1")
                .setNamespaceId("0123456789abcdef0123456789abcdef").setBucket("kv").setKey("k");
        if (of != null) {
            String parentId = of == parent ? p.toString() : c.toString();
            record.setParentObjectId(parentId).setSharedBytes(shared)
                    .addAllShared(SharedBytes.continuing(parentId, of, shared));
        }
        return record.build();
    }

    private static List<String> ids(Iterator<Sharers.Reader> readers) {
        List<String> ids = new ArrayList<>();
        readers.forEachRemaining(r -> ids.add(r.objectId()));
        return ids;
    }
}
