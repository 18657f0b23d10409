package io.promptcache.schema.object;

import java.util.List;

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
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED)
                .setTombstone(next(record, reason, deleteAfterMs, decidedBy)).build();
    }

    /**
     * The tombstone of {@code record} after {@code node} said it no longer holds it (it deleted the object for room,
     * or answered NoSuchKey): due at {@code nowMs} (no grace window: nothing is left there to read), and phase two
     * sends that node no DELETE ({@code Tombstone.deleted_on}).
     */
    public static ObjectRecord goneFrom(ObjectRecord record, String node, TombstoneReason reason, long nowMs,
            String decidedBy) {
        Tombstone.Builder tombstone = next(record, reason, nowMs, decidedBy);
        if (!tombstone.getDeletedOnList().contains(node)) {
            tombstone.addDeletedOn(node);
        }
        return record.toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).setTombstone(tombstone).build();
    }

    /**
     * Whether {@code record} is a tombstone every node of which said it no longer holds the object: no DELETE is
     * left to send anywhere.
     */
    public static boolean goneFromEveryNode(ObjectRecord record) {
        return record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED && record.getNodesCount() > 0
                && record.getTombstone().getDeletedOnList().containsAll(record.getNodesList());
    }

    private static Tombstone.Builder next(ObjectRecord record, TombstoneReason reason, long deleteAfterMs,
            String decidedBy) {
        long epoch = record.hasTombstone() ? record.getTombstone().getEpoch() + 1 : 1;
        // a node that no longer held the object still does not: object keys are never reused
        List<String> deletedOn = record.hasTombstone() ? record.getTombstone().getDeletedOnList() : List.of();
        return Tombstone.newBuilder().setEpoch(epoch).setReason(reason).setDeleteAfterMs(deleteAfterMs)
                .setDecidedBy(decidedBy).addAllDeletedOn(deletedOn);
    }
}
