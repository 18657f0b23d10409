package io.promptcache.gc.policy;

import io.promptcache.schema.key.ObjectId;

/**
 * A LIVE object nominated as an eviction candidate on its node.
 *
 * @param lastUseMs its last use (0 when superseded: no lookup returns it)
 * @param bonusMs what its class adds to a use under the GC's {@link EvictionPolicy}: the node deletes candidates in
 *        order of last use plus bonus, a use it sees itself moving the last use (0 under LRU)
 */
public record Nomination(ObjectId id, String node, long lastUseMs, long bonusMs) {

    public Nomination(ObjectId id, String node, long lastUseMs) {
        this(id, node, lastUseMs, 0);
    }

    /** The order in which the node deletes it (earliest first). */
    public long rankMs() {
        return lastUseMs + bonusMs;
    }
}
