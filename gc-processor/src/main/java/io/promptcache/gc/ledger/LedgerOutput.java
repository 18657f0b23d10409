package io.promptcache.gc.ledger;

import io.promptcache.gc.budget.GcObject;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;

/** What the ledger emits. */
public sealed interface LedgerOutput {

    /** Null this {@code prefixes} key: it points to a tombstoned or removed object. */
    record PrefixRetraction(PrefixKey key) implements LedgerOutput {
    }

    /** Null this {@code objects} key: phase two is done, the bytes are deleted. */
    record ObjectRemoval(ObjectId id) implements LedgerOutput {
    }

    /** The object as the budgets must count it; null once it is removed. */
    record Summary(ObjectId id, GcObject object) implements LedgerOutput {
    }
}
