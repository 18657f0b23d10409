package io.promptcache.gc.policy;

import io.promptcache.schema.key.ObjectId;

/**
 * A LIVE object nominated as an eviction candidate on its node.
 *
 * @param lastUseMs its last use (0 when superseded: no lookup returns it), by which the node orders candidates
 */
public record Nomination(ObjectId id, String node, long lastUseMs) {
}
