package io.promptcache.gc.storage;

import java.util.List;
import java.util.Set;

/** The S3 calls the GC makes on a storage node. Failures raise {@link StorageCallException}. */
public interface NodeStorage {

    /** Deletes one object; deleting an absent object succeeds (S3 semantics). */
    void delete(String endpoint, String bucket, String key);

    /**
     * Tells the node an evicted object may be deleted early when a write needs room (before {@code deleteAfterMs},
     * the end of its grace window): the node's reclaimable marker, set by a CopyObject onto itself that replaces its
     * metadata (no byte copied). An absent object is no error.
     */
    void markReclaimable(String endpoint, String bucket, String key, long deleteAfterMs);

    /**
     * Nominates a LIVE object as an eviction candidate: a node that reclaims on demand deletes it when a write needs
     * room (after the evicted objects, the least recently used candidate first) and reports it in its heartbeats.
     * The node's candidate marker, set like {@link #markReclaimable}.
     *
     * @param lastUseMs the object's last use as the GC knows it (the node orders candidates by it)
     * @return false if the object is not on the node (already gone)
     */
    boolean markCandidate(String endpoint, String bucket, String key, long lastUseMs);

    /**
     * One page of the bucket's keys.
     *
     * @param continuation the previous page's {@link Listing#next()}, or null for the first page
     */
    Listing list(String endpoint, String bucket, String continuation, int pageSize);

    /**
     * Writes {@code cluster}'s claim on the bucket, an empty object {@code <prefix><cluster>} (empty: it takes no room
     * on a node), then lists the claims under {@code prefix}: the clusters that claim the bucket, this one included
     * (docs/architecture.md, "The orphan sweep deletes only proven orphans", rule 4). A missing bucket holds no claim
     * and takes none: empty.
     */
    Set<String> claim(String endpoint, String bucket, String prefix, String cluster);

    /**
     * One page of a listing.
     *
     * @param objects the keys of the page
     * @param next continuation of the next page, null on the last
     */
    record Listing(List<Listed> objects, String next) {
    }

    /** One listed object. */
    record Listed(String key, long bytes, long lastModifiedMs) {
    }
}
