package io.promptcache.schema.object;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;

/**
 * Phase one of eviction as an ObjectRecord, for every service that decides one (the gc-processor's budgets, the
 * index's delete and invalidate): the same object, TOMBSTONED, with the next epoch. The epoch counts the tombstone
 * decisions of the object (1, then the previous record's + 1), so it is the same whoever decides and never depends on
 * a clock; {@code objects.proto} says how readers use it.
 */
public final class Tombstones {

    private Tombstones() {
    }

    /**
     * The tombstone of {@code record}.
     *
     * @param deleteAfterMs end of the grace window (milliseconds since the Unix epoch)
     * @param decidedBy the deciding gc instance or index replica
     */
    public static ObjectRecord of(ObjectRecord record, TombstoneReason reason, long deleteAfterMs, String decidedBy) {
        long epoch = record.hasTombstone() ? record.getTombstone().getEpoch() + 1 : 1;
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(Tombstone.newBuilder().setEpoch(epoch).setReason(reason)
                        .setDeleteAfterMs(deleteAfterMs).setDecidedBy(decidedBy))
                .build();
    }
}
