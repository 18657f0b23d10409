package io.promptcache.gc.ledger;

import io.promptcache.gc.policy.GcObject;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;

/**
 * The ledger's state of one object id.
 *
 * @param record latest record, null while only prefix references arrived
 * @param lastAccessMs latest access reported
 * @param refs prefix keys pointing to the object now
 * @param everReferenced some prefix key pointed to it at some time
 * @param deleteAttempts failed phase-two attempts so far
 * @param dueAtMs when phase two runs next (0: not scheduled)
 * @param deleted phase two deleted its bytes on every node; the record stays (TOMBSTONED, its keys served by the
 *        objects that share its bytes) until the budget keeper nulls it
 */
public record LedgerEntry(ObjectRecord record, long lastAccessMs, int refs, boolean everReferenced,
        int deleteAttempts, long dueAtMs, boolean deleted) {

    static final LedgerEntry EMPTY = new LedgerEntry(null, 0, 0, false, 0, 0, false);

    public LedgerEntry(ObjectRecord record, long lastAccessMs, int refs, boolean everReferenced, int deleteAttempts,
            long dueAtMs) {
        this(record, lastAccessMs, refs, everReferenced, deleteAttempts, dueAtMs, false);
    }

    boolean tombstoned() {
        return record != null && record.getState() == ObjectState.OBJECT_STATE_TOMBSTONED;
    }

    /** Every prefix it advertised points elsewhere now: no lookup can return it. */
    boolean superseded() {
        return everReferenced && refs == 0;
    }

    GcObject summary() {
        return summary(record);
    }

    /** The summary with {@code full}, this entry's record as it came (with the keys it lists). */
    GcObject summary(ObjectRecord full) {
        return new GcObject(full, lastAccessMs, superseded(), deleted);
    }

    LedgerEntry withRecord(ObjectRecord newRecord) {
        return new LedgerEntry(newRecord, lastAccessMs, refs, everReferenced, deleteAttempts, dueAtMs, deleted);
    }

    LedgerEntry withAccess(long accessMs) {
        return new LedgerEntry(record, Math.max(lastAccessMs, accessMs), refs, everReferenced, deleteAttempts,
                dueAtMs, deleted);
    }

    LedgerEntry withRefs(int newRefs) {
        return new LedgerEntry(record, lastAccessMs, newRefs, everReferenced || newRefs > 0, deleteAttempts,
                dueAtMs, deleted);
    }

    LedgerEntry withDue(long newDueAtMs, int attempts) {
        return new LedgerEntry(record, lastAccessMs, refs, everReferenced, attempts, newDueAtMs, deleted);
    }

    /** Phase two is done: its bytes are deleted, nothing is scheduled. */
    LedgerEntry withDeleted() {
        return new LedgerEntry(record, lastAccessMs, refs, everReferenced, 0, 0, true);
    }
}
