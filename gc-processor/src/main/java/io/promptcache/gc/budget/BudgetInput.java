package io.promptcache.gc.budget;

import io.promptcache.gc.policy.GcObject;
import io.promptcache.schema.proto.Reclaim;

/** What the budget keeper reads: the ledgers' summaries of objects, and the objects nodes deleted on their own. */
public sealed interface BudgetInput {

    /** The summary of an object from its ledger; null when the object is gone. */
    record Summary(GcObject object) implements BudgetInput {
    }

    /** A {@code reclaims} record: a node deleted the object on its own for room. */
    record Reclaimed(Reclaim reclaim) implements BudgetInput {
    }
}
