package io.promptcache.gc.ledger;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.AccessEvent;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/** What the ledger of one object id learns: its record changed, it was accessed, or a prefix key moved. */
public sealed interface LedgerEvent {

    /** The object's record on {@code objects}; null when the key was removed. */
    record ObjectChanged(ObjectRecord record) implements LedgerEvent {
    }

    /** Accesses of the object reported on {@code access}. */
    record Accessed(AccessEvent event) implements LedgerEvent {
    }

    /**
     * A prefix key now points to the object ({@code added}) or stopped pointing to it.
     *
     * @param nulled when a null on {@code prefixes} removed the key (rather than another object taking it over): the
     *        entry the key held, so the ledger can put it back if the null was not meant for this object (a
     *        retraction of an older object that raced with this object's advertisement); null otherwise
     */
    record RefChanged(PrefixKey key, boolean added, PrefixEntry nulled) implements LedgerEvent {

        public RefChanged(PrefixKey key, boolean added) {
            this(key, added, null);
        }

        /** The key, which pointed to the object with {@code entry}, was nulled. */
        public static RefChanged nulled(PrefixKey key, PrefixEntry entry) {
            return new RefChanged(key, false, entry);
        }
    }
}
