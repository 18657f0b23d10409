package io.promptcache.storage.store;

import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Buckets and their lifecycle: created, listed, deleted when empty. Commits of objects hold {@link #commits()}
 * (shared) and DeleteBucket holds the same lock exclusively, so no object lands in a bucket being deleted.
 */
final class Buckets {

    private final MetadataStore metadata;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();

    Buckets(MetadataStore metadata) {
        this.metadata = metadata;
    }

    /** Creates a bucket; false if it exists already. */
    boolean create(String bucket) {
        return metadata.createBucket(Names.checkBucket(bucket), System.currentTimeMillis());
    }

    /** Creation time of an existing bucket; {@code NoSuchBucket} otherwise. */
    long created(String bucket) {
        return metadata.bucketCreated(bucket).orElseThrow(() -> noSuchBucket(bucket));
    }

    /** Whether the bucket exists now. */
    boolean exists(String bucket) {
        return metadata.bucketCreated(bucket).isPresent();
    }

    Map<String, Long> list() {
        return metadata.listBuckets();
    }

    /** Deletes an empty bucket: {@code NoSuchBucket} or {@code BucketNotEmpty} otherwise. */
    void delete(String bucket) {
        lifecycle.writeLock().lock();
        try {
            created(bucket);
            if (metadata.hasObjects(bucket)) {
                throw new S3Exception(S3ErrorCode.BUCKET_NOT_EMPTY,
                        "The bucket '" + bucket + "' is not empty: delete its objects first.");
            }
            metadata.deleteBucket(bucket);
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** What a commit holds while it writes an object's entry (shared with other commits, not with DeleteBucket). */
    Lock commits() {
        return lifecycle.readLock();
    }

    static S3Exception noSuchBucket(String bucket) {
        return new S3Exception(S3ErrorCode.NO_SUCH_BUCKET, "The specified bucket does not exist: " + bucket);
    }
}
