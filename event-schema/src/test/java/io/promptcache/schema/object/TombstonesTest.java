package io.promptcache.schema.object;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;

import static org.assertj.core.api.Assertions.assertThat;

class TombstonesTest {

    @Test
    void shouldCountTheDecisionsOfAnObjectWhoeverDecides() {
        ObjectRecord live = ObjectRecord.newBuilder().setKey("ns/o").setState(ObjectState.OBJECT_STATE_LIVE)
                .setTotalBytes(10).build();
        ObjectRecord first = Tombstones.of(live, TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE, 5_000, "index-1");
        assertThat(first.getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
        assertThat(first.getTombstone().getEpoch()).isEqualTo(1);
        assertThat(first.getTombstone().getDeleteAfterMs()).isEqualTo(5_000);
        assertThat(first.getTombstone().getDecidedBy()).isEqualTo("index-1");
        assertThat(first.getTotalBytes()).isEqualTo(10);
        assertThat(first.getKey()).isEqualTo("ns/o");
        ObjectRecord second = Tombstones.of(first, TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 9_000, "gc");
        assertThat(second.getTombstone().getEpoch()).isEqualTo(2);
        assertThat(second.getTombstone().getReason()).isEqualTo(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET);
    }

    @Test
    void shouldNameTheNodeThatNoLongerHoldsTheObject() {
        ObjectRecord live = ObjectRecord.newBuilder().setKey("ns/o").setState(ObjectState.OBJECT_STATE_LIVE)
                .addNodes("node-1").addNodes("node-2").build();
        ObjectRecord gone = Tombstones.goneFrom(live, "node-2", TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 7_000,
                "gc");
        assertThat(gone.getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
        assertThat(gone.getTombstone().getDeleteAfterMs()).isEqualTo(7_000);
        assertThat(gone.getTombstone().getDeletedOnList()).containsExactly("node-2");
        // a later decision keeps it: object keys are never reused, so the node still does not hold it
        ObjectRecord again = Tombstones.of(gone, TombstoneReason.TOMBSTONE_REASON_INVALIDATED, 9_000, "index-1");
        assertThat(again.getTombstone().getDeletedOnList()).containsExactly("node-2");
        assertThat(Tombstones.goneFrom(again, "node-2", TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 9_500, "gc")
                .getTombstone().getDeletedOnList()).containsExactly("node-2");
    }

    @Test
    void shouldSayAnObjectIsGoneOnlyWhenEveryNodeOfItsRecordSaidSo() {
        ObjectRecord live = ObjectRecord.newBuilder().setKey("ns/o").setState(ObjectState.OBJECT_STATE_LIVE)
                .addNodes("node-1").addNodes("node-2").build();
        assertThat(Tombstones.goneFromEveryNode(live)).isFalse();
        ObjectRecord fromOne = Tombstones.goneFrom(live, "node-2", TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET,
                7_000, "gc");
        assertThat(Tombstones.goneFromEveryNode(fromOne)).isFalse();
        assertThat(Tombstones.goneFromEveryNode(Tombstones.goneFrom(fromOne, "node-1",
                TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET, 7_500, "gc"))).isTrue();
        // a tombstone of a record that names no node is not "gone": nothing says where its bytes were
        ObjectRecord nowhere = Tombstones.of(ObjectRecord.newBuilder().setKey("ns/p").build(),
                TombstoneReason.TOMBSTONE_REASON_OWNER_DELETE, 1_000, "index-1");
        assertThat(Tombstones.goneFromEveryNode(nowhere)).isFalse();
    }
}
