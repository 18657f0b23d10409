package io.promptcache.index.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * State that re-derives (issue 66): the ObjectTable's processor started on state whose PrefixMap lost its derived
 * entries (Kafka Streams wiped it and restored it from {@code prefixes}), or whose entries were derived under another
 * layout, or whose ObjectTable holds records restored without passing through it, derives them again; on state that
 * is whole it changes nothing. The processor on stores of its own (the processor level of the test pyramid; the
 * topology and the real broker are {@code DerivedKeysTest} and {@code IndexReplicasIT}).
 */
class ObjectTableUpdaterTest {

    private static final NamespaceId NAMESPACE = NamespaceId.ofBytes(new byte[16]);
    private static final int BLOCKS = 10;
    private static final PrefixChain CHAIN = PrefixChain.ofTokens(NAMESPACE, HashAlgorithm.XXH3_128, 4,
            IntStream.range(0, 4 * BLOCKS).toArray());

    private final MockProcessorContext<Void, Void> context = new MockProcessorContext<>();
    private KeyValueStore<ObjectId, ObjectRecord> table;
    private KeyValueStore<PrefixKey, PrefixEntry> map;
    private KeyValueStore<KeyPageId, ObjectKeyPage> pages;
    private final PendingPages pending = new PendingPages();
    private final ObjectId first = ObjectId.generate();
    private final ObjectId second = ObjectId.generate();

    @BeforeEach
    void stores() {
        table = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TopologyProducer.OBJECT_TABLE),
                Topics.OBJECTS.keySerde(), Topics.OBJECTS.valueSerde()).withLoggingDisabled().build();
        map = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TopologyProducer.PREFIX_MAP),
                Topics.PREFIXES.keySerde(), Topics.PREFIXES.valueSerde()).withLoggingDisabled().build();
        pages = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(TopologyProducer.KEY_PAGES),
                Topics.OBJECT_KEYS.keySerde(), Topics.OBJECT_KEYS.valueSerde()).withLoggingDisabled().build();
        table.init(context.getStateStoreContext(), table);
        map.init(context.getStateStoreContext(), map);
        pages.init(context.getStateStoreContext(), pages);
        context.addStateStore(table);
        context.addStateStore(map);
        context.addStateStore(pages);
    }

    /** A replica's processor started on the stores as they are; the two objects' records processed first. */
    private ObjectTableUpdater started() {
        ObjectTableUpdater updater = new ObjectTableUpdater(TopologyProducer.OBJECT_TABLE,
                TopologyProducer.PREFIX_MAP, TopologyProducer.KEY_PAGES, new Sharers(), pending, entry -> {
                });
        updater.init(context);
        return updater;
    }

    private void storeTwoObjects() {
        ObjectTableUpdater updater = started();
        updater.process(new Record<>(first, record(7, 1), 0));
        updater.process(new Record<>(second, record(1, 2), 0));
    }

    /** A record of BLOCKS blocks listing (keys from the record) the keys of blocks {@code from..BLOCKS}. */
    private static ObjectRecord record(int from, long createdAtMs) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(NAMESPACE.toString()).setKey("ns/o")
                .setBlocks(BLOCKS).setLayout(BlockLayout.newBuilder().setBytesPerBlock(100))
                .setTotalBytes(BLOCKS * 100L).setOwnerId("index-1").setCreatedAtMs(createdAtMs);
        List<PrefixKey> keys = IntStream.rangeClosed(from, BLOCKS).mapToObj(CHAIN::key).toList();
        return WrittenKeys.list(record, keys).setKeysFromRecord(true).build();
    }

    private List<PrefixKey> entries() {
        List<PrefixKey> keys = new ArrayList<>();
        try (KeyValueIterator<PrefixKey, PrefixEntry> all = map.all()) {
            all.forEachRemaining(kv -> {
                if (!MapLayout.STAMP_KEY.equals(kv.key)) {
                    keys.add(kv.key);
                }
            });
        }
        return keys;
    }

    @Test
    void shouldDeriveEveryEntryAgainWhenThePrefixMapWasWipedAndRestored() {
        // Given: two objects' entries derived (anchors 1, 7, 8 and 10) and stamped; then the map wiped (entries and
        // stamp gone), the ObjectTable whole
        storeTwoObjects();
        List<PrefixKey> derived = entries();
        assertThat(derived).containsExactlyInAnyOrder(CHAIN.key(1), CHAIN.key(7), CHAIN.key(8), CHAIN.key(BLOCKS));
        assertThat(map.get(MapLayout.STAMP_KEY)).isEqualTo(MapLayout.current());
        List.copyOf(derived).forEach(map::delete);
        map.delete(MapLayout.STAMP_KEY);

        // When: the replica starts on it
        started();

        // Then
        assertThat(entries()).containsExactlyInAnyOrderElementsOf(derived);
        assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(second.toString());
        assertThat(map.get(CHAIN.key(BLOCKS)).getOlderListers(0).getObjectId()).isEqualTo(first.toString());
        assertThat(map.get(MapLayout.STAMP_KEY)).isEqualTo(MapLayout.current());
    }

    @Test
    void shouldReplaceTheEntriesOfAnotherLayout() {
        // Given: a map derived by a build that anchored every 4th block (an entry at block 4 this build has none for)
        storeTwoObjects();
        map.put(MapLayout.STAMP_KEY, MapLayout.stamp(4, 1));
        map.put(CHAIN.key(4), map.get(CHAIN.key(BLOCKS)).toBuilder().setBlocks(4).build());

        // When
        started();

        // Then: its entries gone, this layout's derived, stamped
        assertThat(entries()).containsExactlyInAnyOrder(CHAIN.key(1), CHAIN.key(7), CHAIN.key(8), CHAIN.key(BLOCKS));
        assertThat(map.get(MapLayout.STAMP_KEY)).isEqualTo(MapLayout.current());
    }

    @Test
    void shouldDeriveARecordRestoredIntoTheTableWithoutItsEntries() {
        // Given: a whole, stamped map; a record copied into the table by a restore (it never passed the processor)
        storeTwoObjects();
        ObjectId restored = ObjectId.generate();
        table.put(restored, record(BLOCKS, 3));
        assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(second.toString());

        // When
        started();

        // Then: it is listed (the newest lister of block 10's key); the others untouched
        assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(restored.toString());
        assertThat(entries()).containsExactlyInAnyOrder(CHAIN.key(1), CHAIN.key(7), CHAIN.key(8), CHAIN.key(BLOCKS));
    }

    /** The processor of {@code object-keys} on this test's stores. */
    private KeyPagesUpdater pagesUpdater() {
        KeyPagesUpdater updater = new KeyPagesUpdater(TopologyProducer.KEY_PAGES, TopologyProducer.OBJECT_TABLE,
                TopologyProducer.PREFIX_MAP, pending, entry -> {
                });
        updater.init(context);
        return updater;
    }

    /** A record of BLOCKS blocks listing every key in pages of 3 keys (4 pages); its pages into {@code into}. */
    private static ObjectRecord paged(List<ObjectKeyPage> into) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(NAMESPACE.toString()).setKey("ns/p")
                .setBlocks(BLOCKS).setLayout(BlockLayout.newBuilder().setBytesPerBlock(100))
                .setTotalBytes(BLOCKS * 100L).setOwnerId("index-1").setCreatedAtMs(5).setKeysFromRecord(true);
        into.addAll(WrittenKeys.listPaged(record, IntStream.rangeClosed(1, BLOCKS).mapToObj(CHAIN::key).toList(), 3));
        return record.build();
    }

    @Test
    void shouldDeriveAPagedRecordWhicheverOfItsRecordAndPagesComesFirst() {
        List<ObjectKeyPage> keyPages = new ArrayList<>();
        ObjectRecord record = paged(keyPages);
        assertThat(keyPages).hasSize(4);
        assertThat(record.getWrittenPrefixHashes().isEmpty()).isTrue();
        ObjectTableUpdater objects = started();
        KeyPagesUpdater pageUpdater = pagesUpdater();

        // the pages first (the order of a restore, and usually live): listed when the record comes
        ObjectId early = ObjectId.generate();
        for (int i = 0; i < keyPages.size(); i++) {
            pageUpdater.process(new Record<>(new KeyPageId(early, i), keyPages.get(i), 0));
        }
        assertThat(entries()).isEmpty();
        objects.process(new Record<>(early, record, 0));
        assertThat(entries()).containsExactlyInAnyOrder(CHAIN.key(1), CHAIN.key(8), CHAIN.key(BLOCKS));

        // the record first: nothing until its last page comes
        ObjectId late = ObjectId.generate();
        objects.process(new Record<>(late, record, 0));
        for (int i = 0; i < keyPages.size(); i++) {
            assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(early.toString());
            pageUpdater.process(new Record<>(new KeyPageId(late, i), keyPages.get(i), 0));
        }
        assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(late.toString());
        assertThat(map.get(CHAIN.key(1)).getOlderListers(0).getObjectId()).isEqualTo(early.toString());

        // a restart on these stores finds both listed, and a wiped map derived again from the pages
        List<PrefixKey> derived = entries();
        derived.forEach(map::delete);
        map.delete(MapLayout.STAMP_KEY);
        started();
        assertThat(entries()).containsExactlyInAnyOrderElementsOf(derived);
        assertThat(map.get(CHAIN.key(8)).getOlderListersCount()).isEqualTo(1);

        // removal: early's pages nulled before its record's null (two topics), late's record nulled first
        objects = started();
        pageUpdater = pagesUpdater();
        for (int i = 0; i < keyPages.size(); i++) {
            pageUpdater.process(new Record<>(new KeyPageId(early, i), null, 0));
        }
        objects.process(new Record<>(early, null, 0));
        assertThat(map.get(CHAIN.key(1)).getObjectId()).isEqualTo(late.toString());
        assertThat(map.get(CHAIN.key(1)).getOlderListersCount()).isZero();
        objects.process(new Record<>(late, null, 0));
        for (int i = 0; i < keyPages.size(); i++) {
            pageUpdater.process(new Record<>(new KeyPageId(late, i), null, 0));
        }
        assertThat(entries()).isEmpty();
        assertThat(pages.approximateNumEntries()).isZero();
    }
}
