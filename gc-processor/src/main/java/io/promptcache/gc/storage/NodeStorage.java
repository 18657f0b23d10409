package io.promptcache.gc.storage;

import java.util.List;

/** The S3 calls the GC makes on a storage node. Failures raise {@link StorageCallException}. */
public interface NodeStorage {

    /** Deletes one object; deleting an absent object succeeds (S3 semantics). */
    void delete(String endpoint, String bucket, String key);

    /**
     * One page of the bucket's keys.
     *
     * @param continuation the previous page's {@link Listing#next()}, or null for the first page
     */
    Listing list(String endpoint, String bucket, String continuation, int pageSize);

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
