package io.promptcache.storage.store;

import java.util.Comparator;

import io.promptcache.schema.key.ObjectKey;
import io.promptcache.schema.node.NodeMarkers;

/**
 * This node's own record of when each of its KV objects was last used: stored, or read whole (a range GET or a copied
 * part of all of it; a prefix read is a partial hit, whose bytes the continuation stored next holds). It is the order
 * in which the node deletes its own objects for a write when the GC marked nothing it could delete (the GC lags, is
 * away or restarting): the least recently used first, never one used within the age limit the store is given, never
 * a pinned one ({@link NodeMarkers#PINNED}). Only keys of promptcache's KV form ({@link ObjectKey}) are in it: other
 * objects on the node are not the cache's to drop.
 */
final class Recency {

    /** One object version and its last use (ms since the epoch). */
    record Entry(long lastUseMs, String bucket, String key, String versionId) {
    }

    private static final Comparator<Entry> OLDEST_FIRST = Comparator.comparingLong(Entry::lastUseMs)
            .thenComparing(Entry::bucket).thenComparing(Entry::key).thenComparing(Entry::versionId);

    private final ObjectOrder<Entry> order = new ObjectOrder<>(OLDEST_FIRST);

    /**
     * {@code bucket/key} is now {@code meta}. A new version of a known object (a GC mark, a CopyObject onto itself)
     * keeps its last use; a new object is used at its creation.
     */
    void update(String bucket, String key, ObjectMeta meta) {
        boolean evictable = ObjectKey.objectId(key) != null
                && !"true".equalsIgnoreCase(meta.userMetadata().get(NodeMarkers.PINNED));
        order.update(bucket, key, previous -> evictable
                ? new Entry(previous != null ? previous.lastUseMs() : meta.lastModified(), bucket, key, meta.fileId())
                : null);
    }

    /** {@code bucket/key} was read whole at {@code nowMs}. */
    void used(String bucket, String key, long nowMs) {
        Entry current = order.get(bucket, key);
        if (current == null || current.lastUseMs() >= nowMs) {
            return;
        }
        order.move(bucket, key, current, new Entry(nowMs, bucket, key, current.versionId()));
    }

    /** {@code bucket/key} was deleted. */
    void forget(String bucket, String key) {
        order.forget(bucket, key);
    }

    /** The next least recently used after {@code previous} (null: the first); null when none is left. */
    Entry next(Entry previous) {
        return order.next(previous);
    }
}
