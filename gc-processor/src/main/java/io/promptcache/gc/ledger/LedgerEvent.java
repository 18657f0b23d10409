package io.promptcache.gc.ledger;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.ObjectRecord;

/** What the ledger of one object id learns: its record changed, it was accessed, or a prefix key moved. */
public sealed interface LedgerEvent {

    /** The object's record on {@code objects}; null when the key was removed. */
    record ObjectChanged(ObjectRecord record) implements LedgerEvent {
    }

    /** Accesses of the object reported on {@code access}. */
    record Accessed(AccessEvent event) implements LedgerEvent {
    }

    /** A prefix key now points to the object ({@code added}) or stopped pointing to it. */
    record RefChanged(PrefixKey key, boolean added) implements LedgerEvent {
    }
}
