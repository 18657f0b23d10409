package io.promptcache.index.streams;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
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
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The PrefixMap entries index replicas derive from object records that list their keys (docs/architecture.md, "Keys
 * from the object record"), through the replica's own topology, without a broker.
 */
class DerivedKeysTest {

    private static final NamespaceId NAMESPACE = NamespaceId.ofBytes(new byte[16]);
    private static final int BLOCKS = 10;
    private static final long BYTES_PER_BLOCK = 100;
    private static final PrefixChain CHAIN = PrefixChain.ofTokens(NAMESPACE, HashAlgorithm.XXH3_128, 4,
            IntStream.range(0, 4 * BLOCKS).toArray());

    private final List<PrefixEntry> visible = new ArrayList<>();
    private TestTopology topology;
    private KeyValueStore<PrefixKey, PrefixEntry> map;

    @BeforeEach
    void start() {
        topology = new TestTopology("index-derived-keys-test", visible::add);
        map = topology.driver.getKeyValueStore(TopologyProducer.PREFIX_MAP);
    }

    @AfterEach
    void stop() {
        topology.close();
    }

    private <K, V> TestInputTopic<K, V> input(TopicSpec<K, V> topic) {
        return topology.input(topic);
    }

    /** A store's record: BLOCKS blocks, listing the keys of blocks {@code first..BLOCKS}. */
    private static ObjectRecord record(int first, boolean fromRecord, long createdAtMs) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(NAMESPACE.toString()).setKey("ns/o")
                .setBlocks(BLOCKS).setLayout(BlockLayout.newBuilder().setBytesPerBlock(BYTES_PER_BLOCK))
                .setTotalBytes(BLOCKS * BYTES_PER_BLOCK).setOwnerId("index-1").setCreatedAtMs(createdAtMs);
        List<PrefixKey> keys = IntStream.rangeClosed(first, BLOCKS).mapToObj(CHAIN::key).toList();
        return WrittenKeys.list(record, keys).setKeysFromRecord(fromRecord).build();
    }

    private static ObjectRecord tombstoned(ObjectRecord record) {
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(Tombstone.newBuilder().setEpoch(1).setDeleteAfterMs(5)).build();
    }

    @Test
    void shouldDeriveTheEntryOfEveryListedKeyFromTheRecord() {
        // Given: a continuation of 10 blocks that wrote blocks 7-10
        ObjectId id = ObjectId.generate();

        // When
        input(Topics.OBJECTS).pipeInput(id, record(7, true, 1234));

        // Then: one entry per anchor among the listed keys (the first written, 7; every eighth, 8; the last, 10),
        // its block count and the layout's bytes for it; nothing for block 9, nor for blocks 1-6
        for (int k : new int[]{7, 8, BLOCKS}) {
            PrefixEntry entry = map.get(CHAIN.key(k));
            assertThat(entry.getObjectId()).isEqualTo(id.toString());
            assertThat(entry.getBlocks()).isEqualTo(k);
            assertThat(entry.getUsableBytes()).isEqualTo(k * BYTES_PER_BLOCK);
            assertThat(entry.getVersion()).isEqualTo(1234);
            assertThat(entry.getFromRecords()).isTrue();
            assertThat(entry.getOlderListersList()).isEmpty();
        }
        assertThat(map.get(CHAIN.key(6))).isNull();
        assertThat(map.get(CHAIN.key(9))).as("not an anchor: a lookup reads it from the record").isNull();
        assertThat(TestTopology.entries(map)).isEqualTo(3);
        assertThat(visible).as("the record's visibility, told once").hasSize(1);
        assertThat(visible.get(0).getAdvertisedAtMs()).isEqualTo(1234);
    }

    @Test
    void shouldDeriveARecordWhoseKeysAreInPagesWhenItsLastPageComesAfterIt() {
        // Given: a record listing its 10 keys in pages of 4 (a long prompt's, scaled down: "Key pages")
        ObjectRecord.Builder builder = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(NAMESPACE.toString()).setKey("ns/o")
                .setBlocks(BLOCKS).setLayout(BlockLayout.newBuilder().setBytesPerBlock(BYTES_PER_BLOCK))
                .setTotalBytes(BLOCKS * BYTES_PER_BLOCK).setOwnerId("index-1").setCreatedAtMs(9)
                .setKeysFromRecord(true);
        List<ObjectKeyPage> pages = WrittenKeys.listPaged(builder, IntStream.rangeClosed(1, BLOCKS)
                .mapToObj(CHAIN::key).toList(), 4);
        ObjectId id = ObjectId.generate();

        // When: the record first, then its pages (two topics: no order between them)
        input(Topics.OBJECTS).pipeInput(id, builder.build());
        assertThat(map.get(CHAIN.key(8))).isNull();
        for (int i = 0; i < pages.size(); i++) {
            input(Topics.OBJECT_KEYS).pipeInput(new KeyPageId(id, i), pages.get(i));
        }

        // Then: its anchors are derived
        assertThat(map.get(CHAIN.key(1)).getObjectId()).isEqualTo(id.toString());
        assertThat(map.get(CHAIN.key(8)).getBlocks()).isEqualTo(8);
        assertThat(map.get(CHAIN.key(BLOCKS)).getUsableBytes()).isEqualTo(BLOCKS * BYTES_PER_BLOCK);

        // When: nulled, then its pages
        input(Topics.OBJECTS).pipeInput(id, null);
        for (int i = 0; i < pages.size(); i++) {
            input(Topics.OBJECT_KEYS).pipeInput(new KeyPageId(id, i), null);
        }
        assertThat(map.get(CHAIN.key(1))).isNull();
        assertThat(map.get(CHAIN.key(8))).isNull();
    }

    @Test
    void shouldDeriveNothingFromARecordWhoseStoreAdvertisedItsKeys() {
        input(Topics.OBJECTS).pipeInput(ObjectId.generate(), record(1, false, 1));
        assertThat(TestTopology.entries(map)).isZero();
    }

    @Test
    void shouldListEveryObjectOfAKeyNewestFirstWhateverTheOrderTheirRecordsArrive() {
        ObjectId older = ObjectId.generate();
        ObjectId newer = ObjectId.generate();
        if (older.toString().compareTo(newer.toString()) > 0) {
            ObjectId swap = older;
            older = newer;
            newer = swap;
        }
        // When: the newer object's record first (another partition), the older's second, then both again
        input(Topics.OBJECTS).pipeInput(newer, record(1, true, 2));
        input(Topics.OBJECTS).pipeInput(older, record(5, true, 1));
        PrefixEntry shared = map.get(CHAIN.key(8));
        input(Topics.OBJECTS).pipeInput(older, record(5, true, 1));
        input(Topics.OBJECTS).pipeInput(newer, tombstoned(record(1, true, 2)));

        // Then: a key both list names the newer and lists the older; replays and tombstones change nothing
        assertThat(shared.getObjectId()).isEqualTo(newer.toString());
        assertThat(shared.getOlderListersList()).extracting(PrefixEntry::getObjectId)
                .containsExactly(older.toString());
        assertThat(map.get(CHAIN.key(8))).isEqualTo(shared);
        assertThat(map.get(CHAIN.key(1)).getOlderListersList()).as("listed by the newer only").isEmpty();
        assertThat(map.get(CHAIN.key(5)).getObjectId()).as("the older's first written block: its anchor only")
                .isEqualTo(older.toString());

        // When: the newer one's record is nulled
        input(Topics.OBJECTS).pipeInput(newer, null);

        // Then: the keys both listed name the older; the newer's own are gone
        PrefixEntry left = map.get(CHAIN.key(8));
        assertThat(left.getObjectId()).isEqualTo(older.toString());
        assertThat(left.getOlderListersList()).isEmpty();
        assertThat(left.getFromRecords()).isTrue();
        assertThat(map.get(CHAIN.key(1))).isNull();

        // When: the older one's too
        input(Topics.OBJECTS).pipeInput(older, null);
        assertThat(TestTopology.entries(map)).isZero();
    }

    @Test
    void shouldDeriveTheKeysOfAnObjectWhoseTopicKeptOnlyItsTombstone() {
        // a compacted topic replayed from the start may hold only the tombstone: its keys stay, for its sharers
        ObjectId id = ObjectId.generate();
        input(Topics.OBJECTS).pipeInput(id, tombstoned(record(1, true, 3)));
        assertThat(map.get(CHAIN.key(BLOCKS)).getObjectId()).isEqualTo(id.toString());
        assertThat(visible).as("a tombstone is no store becoming visible").isEmpty();
    }

    @Test
    void shouldDropTheKeysOfANulledObjectEvenIfItsLastRecordListedNone() {
        // Given: a later record of the object that lists no keys (a writer that dropped them)
        ObjectId id = ObjectId.generate();
        input(Topics.OBJECTS).pipeInput(id, record(1, true, 3));
        input(Topics.OBJECTS).pipeInput(id, WrittenKeys.without(tombstoned(record(1, true, 3))).toBuilder()
                .setKeysFromRecord(false).build());

        // When
        input(Topics.OBJECTS).pipeInput(id, null);

        // Then: the keys of the record before it were kept with it, and go with the null
        assertThat(TestTopology.entries(map)).isZero();
    }

    @Test
    void shouldNotLetAnAdvertiseOrANullOfEarlierBuildsTouchADerivedKey() {
        ObjectId id = ObjectId.generate();
        ObjectId legacy = ObjectId.generate();
        TestInputTopic<PrefixKey, PrefixEntry> prefixes = input(Topics.PREFIXES);
        PrefixEntry advertised = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setObjectId(legacy.toString()).setBlocks(BLOCKS)
                .setUsableBytes(1).build();
        // Given: a key advertised by an earlier build, then listed by a record (which takes it over)
        prefixes.pipeInput(CHAIN.key(BLOCKS), advertised);
        prefixes.pipeInput(CHAIN.key(1), advertised.toBuilder().setBlocks(1).build());
        input(Topics.OBJECTS).pipeInput(id, record(BLOCKS, true, 3));
        PrefixEntry derived = map.get(CHAIN.key(BLOCKS));

        // When: an ADVERTISE and a null of the earlier build arrive for it
        prefixes.pipeInput(CHAIN.key(BLOCKS), advertised);
        prefixes.pipeInput(CHAIN.key(BLOCKS), null);

        // Then: the derived entry stays; a key the records do not list is still the topic's
        assertThat(derived.getObjectId()).isEqualTo(id.toString());
        assertThat(map.get(CHAIN.key(BLOCKS))).isEqualTo(derived);
        prefixes.pipeInput(CHAIN.key(1), null);
        assertThat(map.get(CHAIN.key(1))).isNull();
    }
}
