package io.promptcache.gc.ledger;

import io.promptcache.gc.policy.GcObject;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/** What the ledger emits. */
public sealed interface LedgerOutput {

    /** A write to {@code prefixes}: {@link #entry()} null nulls the key. */
    sealed interface PrefixWrite extends LedgerOutput {

        PrefixKey key();

        PrefixEntry entry();
    }

    /** Null this {@code prefixes} key: it points to a removed object (its record nulled). */
    record PrefixRetraction(PrefixKey key) implements PrefixWrite {

        @Override
        public PrefixEntry entry() {
            return null;
        }
    }

    /** Write this entry back: a retraction meant for an older object nulled a key of a LIVE one. */
    record PrefixRestore(PrefixKey key, PrefixEntry entry) implements PrefixWrite {
    }

    /** Null this {@code object-keys} page: its object's record was nulled. */
    record PageNull(KeyPageId page) implements LedgerOutput {
    }

    /** The object as the budgets must count it; null once it is removed. */
    record Summary(ObjectId id, GcObject object) implements LedgerOutput {
    }
}
