package io.promptcache.gc.policy;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.TombstoneReason;

/**
 * One victim a plan chose and why.
 *
 * @param keepBytes 0: the object is evicted (tombstoned); else it was trimmed to its first {@code keepBytes} bytes
 *        and stays LIVE ({@link BudgetBook#trim})
 */
public record Eviction(ObjectId id, TombstoneReason reason, long keepBytes) {

    public Eviction(ObjectId id, TombstoneReason reason) {
        this(id, reason, 0);
    }

    /** Whether the object was trimmed rather than evicted. */
    public boolean trimmed() {
        return keepBytes > 0;
    }
}
