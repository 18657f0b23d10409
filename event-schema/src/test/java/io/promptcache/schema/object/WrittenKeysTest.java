package io.promptcache.schema.object;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
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
    void shouldRefuseKeysOfDifferentHashLengths() {
        assertThatThrownBy(() -> WrittenKeys.list(live(), List.of(key(NAMESPACE, 1, 16), key(NAMESPACE, 2, 32))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("16 and 32");
    }

    private static ObjectRecord.Builder live() {
        return ObjectRecord.newBuilder().setNamespaceId(NAMESPACE.toString()).setKey("ns/o")
                .setState(ObjectState.OBJECT_STATE_LIVE);
    }

    private static PrefixKey key(NamespaceId namespace, int n, int length) {
        return new PrefixKey(namespace, ByteBuffer.allocate(length).putInt(n).array());
    }
}
