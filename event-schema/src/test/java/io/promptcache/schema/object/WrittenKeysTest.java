package io.promptcache.schema.object;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.BlockEndOffsets;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.TombstoneReason;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class WrittenKeysTest {

    private static final NamespaceId NAMESPACE = NamespaceId.parse("00112233445566778899aabbccddeeff");

    @Test
    void shouldListAStoresKeysInBlockOrderAndKeepThemInItsTombstone() {
        List<PrefixKey> keys = IntStream.rangeClosed(5, 9).mapToObj(n -> key(NAMESPACE, n, 16)).toList();
        ObjectRecord record = WrittenKeys.list(live(), keys).build();

        assertThat(WrittenKeys.listed(record)).isTrue();
        assertThat(WrittenKeys.count(record)).isEqualTo(5);
        assertThat(WrittenKeys.keys(record)).containsExactlyElementsOf(keys);
        assertThat(WrittenKeys.lists(record, key(NAMESPACE, 7, 16))).isTrue();
        assertThat(WrittenKeys.lists(record, key(NAMESPACE, 4, 16))).as("a key it shares, not one it wrote").isFalse();
        assertThat(WrittenKeys.lists(record, key(NamespaceId.ofBytes(new byte[16]), 7, 16)))
                .as("the same hash in another namespace").isFalse();
        assertThat(WrittenKeys.lists(record, key(NAMESPACE, 7, 32))).as("a hash of another length").isFalse();

        ObjectRecord tombstone = Tombstones.of(record, TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 1, "gc");
        assertThat(WrittenKeys.keys(tombstone)).as("a replay of objects still names every key")
                .containsExactlyElementsOf(keys);
    }

    @Test
    void shouldListNothingForARecordOfAnEarlierBuildOrAStoreThatWroteNoKey() {
        ObjectRecord earlier = live().build();
        assertThat(WrittenKeys.listed(earlier)).isFalse();
        assertThat(WrittenKeys.count(earlier)).isZero();
        assertThat(WrittenKeys.keys(earlier)).isEmpty();
        assertThat(WrittenKeys.lists(earlier, key(NAMESPACE, 1, 16))).isFalse();
        assertThat(WrittenKeys.listed(WrittenKeys.list(live(), List.of()).build())).isFalse();
        assertThat(WrittenKeys.listed(null)).isFalse();
    }

    @Test
    void shouldKeepTheKeysOfAnEarlierRecordOfTheObjectWhenALaterOneListsNone() {
        List<PrefixKey> keys = List.of(key(NAMESPACE, 1, 16), key(NAMESPACE, 2, 16));
        ObjectRecord listing = WrittenKeys.list(live(), keys).build();
        ObjectRecord rebuilt = live().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build();

        ObjectRecord kept = WrittenKeys.keep(listing, rebuilt);

        assertThat(kept.getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
        assertThat(WrittenKeys.keys(kept)).containsExactlyElementsOf(keys);
        assertThat(WrittenKeys.keep(listing, null)).as("a removed record stays removed").isNull();
        assertThat(WrittenKeys.keep(live().build(), rebuilt)).isSameAs(rebuilt);
        assertThat(WrittenKeys.without(kept)).isEqualTo(rebuilt);
    }

    @Test
    void shouldKeepThatTheKeysExistOnlyInTheRecord() {
        List<PrefixKey> keys = List.of(key(NAMESPACE, 1, 16), key(NAMESPACE, 2, 16));
        ObjectRecord listing = WrittenKeys.list(live().setKeysFromRecord(true), keys).build();
        ObjectRecord tombstone = WrittenKeys.without(listing).toBuilder()
                .setState(ObjectState.OBJECT_STATE_TOMBSTONED).setKeysFromRecord(false).build();

        ObjectRecord kept = WrittenKeys.keep(listing, tombstone);

        assertThat(WrittenKeys.fromRecord(listing)).isTrue();
        assertThat(WrittenKeys.fromRecord(kept)).as("the flag comes back with the keys").isTrue();
        assertThat(WrittenKeys.keys(kept)).containsExactlyElementsOf(keys);
        assertThat(WrittenKeys.fromRecord(WrittenKeys.without(listing))).as("no keys listed: nothing to derive")
                .isFalse();
        assertThat(WrittenKeys.fromRecord(WrittenKeys.list(live(), keys).build())).as("an ADVERTISing store's")
                .isFalse();
    }

    @Test
    void shouldSayWhatTheAdvertiseOfEachListedKeyWouldSay() {
        // a 5-block record listing the keys of its last 3 blocks (a continuation of a 2-block object)
        List<PrefixKey> keys = List.of(key(NAMESPACE, 3, 16), key(NAMESPACE, 4, 16), key(NAMESPACE, 5, 16));
        ObjectRecord.Builder record = live().setBlocks(5).setCreatedAtMs(77).setOwnerId("index-1").setPriority(2)
                .setLayout(BlockLayout.newBuilder().setBlockEndOffsets(BlockEndOffsets.newBuilder()
                        .addAllOffsets(List.of(10L, 30L, 60L, 100L, 150L))));

        Map<PrefixKey, PrefixEntry> entries = WrittenKeys.entries("01J", WrittenKeys.list(record, keys).build());

        assertThat(entries.keySet()).containsExactlyElementsOf(keys);
        assertThat(entries.values()).extracting(PrefixEntry::getBlocks).containsExactly(3, 4, 5);
        assertThat(entries.values()).extracting(PrefixEntry::getUsableBytes).containsExactly(60L, 100L, 150L);
        assertThat(entries.values()).allSatisfy(e -> {
            assertThat(e.getObjectId()).isEqualTo("01J");
            assertThat(e.getVersion()).isEqualTo(77);
            assertThat(e.getAdvertisedAtMs()).isEqualTo(77);
            assertThat(e.getOwnerId()).isEqualTo("index-1");
            assertThat(e.getPriority()).isEqualTo(2);
        });
        record.setLayout(BlockLayout.newBuilder().setBytesPerBlock(32));
        assertThat(WrittenKeys.entries("01J", WrittenKeys.list(record, keys).build()).values())
                .extracting(PrefixEntry::getUsableBytes).containsExactly(96L, 128L, 160L);
        assertThat(WrittenKeys.entries("01J", live().build())).isEmpty();
        assertThatThrownBy(() -> WrittenKeys.entries("01J", WrittenKeys.list(record.setBlocks(2), keys).build()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("3 keys for 2 blocks");
    }

    @Test
    void shouldRefuseKeysOfDifferentHashLengths() {
        assertThatThrownBy(() -> WrittenKeys.list(live(), List.of(key(NAMESPACE, 1, 16), key(NAMESPACE, 2, 32))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 and 32");
    }

    @Test
    void shouldListAStoreOfMoreKeysThanAPageHoldsInPagesAndReadEachKeyFromItsPage() {
        // Given: a store of 1,000,000 blocks at block size 1 (a 1M-token prompt) that wrote all its keys, SHA-256
        int blocks = 1_000_000;
        List<PrefixKey> keys = IntStream.rangeClosed(1, blocks).mapToObj(n -> key(NAMESPACE, n, 32)).toList();
        ObjectRecord.Builder builder = live().setBlocks(blocks).setLayout(BlockLayout.newBuilder()
                .setBytesPerBlock(64)).setKeysFromRecord(true);

        // When
        List<ObjectKeyPage> pages = WrittenKeys.listPaged(builder, keys, WrittenKeys.KEYS_PER_PAGE);
        ObjectRecord record = builder.build();

        // Then: the record is small whatever the prompt; pages of at most 1,024 keys (32 KiB) hold the keys
        assertThat(record.getSerializedSize()).isLessThan(200);
        assertThat(pages).hasSize((blocks + WrittenKeys.KEYS_PER_PAGE - 1) / WrittenKeys.KEYS_PER_PAGE);
        assertThat(pages).allSatisfy(p -> assertThat(p.getSerializedSize()).isLessThan(33 * 1024));
        assertThat(WrittenKeys.paged(record)).isTrue();
        assertThat(WrittenKeys.inline(record)).isFalse();
        assertThat(WrittenKeys.listed(record)).isTrue();
        assertThat(WrittenKeys.fromRecord(record)).isTrue();
        assertThat(WrittenKeys.count(record)).isEqualTo(blocks);
        assertThat(WrittenKeys.firstListed(record)).isEqualTo(1);
        ObjectId id = ObjectId.generate();
        Map<KeyPageId, ObjectKeyPage> topic = new HashMap<>();
        for (int i = 0; i < pages.size(); i++) {
            topic.put(new KeyPageId(id, i), pages.get(i));
        }
        assertThat(WrittenKeys.pageIds(id, record)).containsExactlyInAnyOrderElementsOf(topic.keySet());
        assertThat(WrittenKeys.complete(id, record, topic::get)).isTrue();
        for (int blocksAt : new int[]{1, 1024, 1025, 777_777, blocks}) {
            assertThat(WrittenKeys.key(id, record, blocksAt - 1, topic::get)).isEqualTo(keys.get(blocksAt - 1));
            assertThat(WrittenKeys.listsAt(id, record, blocksAt, keys.get(blocksAt - 1), topic::get)).isTrue();
            assertThat(WrittenKeys.listsAt(id, record, blocksAt, key(NAMESPACE, 0, 32), topic::get)).isFalse();
        }
        assertThatThrownBy(() -> WrittenKeys.keys(record)).hasMessageContaining("pages");

        // a missing page: the key cannot be read (never a wrong answer), the listing is not complete
        topic.remove(new KeyPageId(id, 3));
        assertThat(WrittenKeys.complete(id, record, topic::get)).isFalse();
        assertThat(WrittenKeys.key(id, record, 3 * 1024 + 5, topic::get)).isNull();
        assertThat(WrittenKeys.listsAt(id, record, 3 * 1024 + 6, keys.get(3 * 1024 + 5), topic::get)).isFalse();

        // holders that strip keys keep where the pages are; a tombstone keeps it too
        assertThat(WrittenKeys.without(record)).isEqualTo(record);
        ObjectRecord tombstone = Tombstones.of(live().setBlocks(blocks).build(),
                TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 1, "gc");
        ObjectRecord kept = WrittenKeys.keep(record, tombstone);
        assertThat(WrittenKeys.pageIds(id, kept)).hasSize(pages.size());
        assertThat(WrittenKeys.count(kept)).isEqualTo(blocks);
        assertThat(kept.getKeysFromRecord()).isTrue();
    }

    @Test
    void shouldListAtMostAPageOfKeysInline() {
        List<PrefixKey> keys = IntStream.rangeClosed(1, WrittenKeys.KEYS_PER_PAGE).mapToObj(n -> key(NAMESPACE, n,
                32)).toList();
        ObjectRecord.Builder builder = live().setBlocks(keys.size());
        assertThat(WrittenKeys.listPaged(builder, keys, WrittenKeys.KEYS_PER_PAGE)).isEmpty();
        ObjectRecord record = builder.build();
        assertThat(WrittenKeys.inline(record)).isTrue();
        assertThat(WrittenKeys.paged(record)).isFalse();
        assertThat(WrittenKeys.keys(record)).containsExactlyElementsOf(keys);
        assertThat(WrittenKeys.key(ObjectId.generate(), record, 10, WrittenKeys.Pages.NONE)).isEqualTo(keys.get(10));
    }

    private static ObjectRecord.Builder live() {
        return ObjectRecord.newBuilder().setNamespaceId(NAMESPACE.toString()).setKey("ns/o")
                .setState(ObjectState.OBJECT_STATE_LIVE);
    }

    private static PrefixKey key(NamespaceId namespace, int n, int length) {
        return new PrefixKey(namespace, ByteBuffer.allocate(length).putInt(n).array());
    }
}
