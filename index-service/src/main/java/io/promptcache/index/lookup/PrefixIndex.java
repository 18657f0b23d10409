package io.promptcache.index.lookup;

import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectKeyPage;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * What a lookup reads, all in the replica's memory (the global stores): the PrefixMap and the ObjectTable. Never
 * storage.
 */
public interface PrefixIndex {

    /** Throws {@code InvalidStateStoreException} while the stores cannot be read (restoring, rebalancing). */
    void requireReady();

    /** The entry advertised under {@code key}, or null. */
    PrefixEntry prefix(PrefixKey key);

    /** The object's record if it is registered and LIVE (not tombstoned, not gone), else null. */
    ObjectRecord liveObject(String objectId);

    /**
     * The object's record, LIVE or TOMBSTONED, or null: what a lookup reads the keys it lists from (docs/architecture.md,
     * "Anchor keys"). By default only LIVE ones, as {@link #liveObject}.
     */
    default ObjectRecord record(String objectId) {
        return liveObject(objectId);
    }

    /**
     * A page of the keys an object's store wrote ({@code object-keys}: docs/architecture.md, "Key pages"), or null;
     * read by the window of a search over a record that lists its keys in pages.
     */
    default ObjectKeyPage keyPage(KeyPageId id) {
        return null;
    }

    /**
     * A LIVE object whose body equals {@code writerId}'s up to at least {@code usableBytes} (it shares the bytes the
     * writer wrote: docs/architecture.md, "Metadata in proportion to what a store adds"), the furthest-reaching one;
     * null if none. Asked when the writer itself is not LIVE.
     */
    default Served liveSharer(String writerId, long usableBytes) {
        return null;
    }

    /** An object that serves a prefix, and its LIVE record. */
    record Served(String objectId, ObjectRecord record) {
    }
}
