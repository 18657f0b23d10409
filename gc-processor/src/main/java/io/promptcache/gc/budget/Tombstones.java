package io.promptcache.gc.budget;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;

/** Phase one of eviction as an ObjectRecord: the same object, TOMBSTONED, with the next epoch. */
public final class Tombstones {

    private Tombstones() {
    }

    /**
     * The tombstone of {@code record}.
     *
     * @param deleteAfterMs end of the grace window
     * @param decidedBy the deciding gc instance
     */
    public static ObjectRecord of(ObjectRecord record, TombstoneReason reason, long deleteAfterMs,
            String decidedBy) {
        long epoch = record.hasTombstone() ? record.getTombstone().getEpoch() + 1 : 1;
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(Tombstone.newBuilder().setEpoch(epoch).setReason(reason)
                        .setDeleteAfterMs(deleteAfterMs).setDecidedBy(decidedBy))
                .build();
    }

    /** The record as the budget sees it once retired: no longer LIVE, its bytes still held. */
    static ObjectRecord retired(ObjectRecord record) {
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build();
    }
}
