package io.promptcache.index.lookup;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * What a lookup reads, all in the replica's memory (the global stores): the PrefixMap and the ObjectTable. Never
 * storage.
 */
public interface PrefixIndex {

    /** The entry advertised under {@code key}, or null. */
    PrefixEntry prefix(PrefixKey key);

    /** The object's record if it is registered and LIVE (not tombstoned, not gone), else null. */
    ObjectRecord liveObject(String objectId);
}
