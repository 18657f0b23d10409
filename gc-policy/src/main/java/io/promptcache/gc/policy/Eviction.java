package io.promptcache.gc.policy;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.TombstoneReason;

/** One victim a plan chose and why. */
public record Eviction(ObjectId id, TombstoneReason reason) {
}
