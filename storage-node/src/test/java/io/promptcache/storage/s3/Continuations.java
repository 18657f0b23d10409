package io.promptcache.storage.s3;

import java.util.function.Consumer;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Stores a continuation as an engine's store does: one multipart upload of {@code key} whose part 1 is the first
 * {@code shared} bytes of {@code sourceKey} (UploadPartCopy: by reference on a node) and part 2 the new bytes.
 */
public final class Continuations {

    private Continuations() {
    }

    public static void store(S3Client s3, String bucket, String sourceKey, String key, int shared, byte[] fresh) {
        store(s3, bucket, sourceKey, key, shared, fresh, uploadId -> {
        });
    }

    /** {@code started} gets the upload id before any part is sent (a test that kills the node mid-way aborts it). */
    public static void store(S3Client s3, String bucket, String sourceKey, String key, int shared, byte[] fresh,
            Consumer<String> started) {
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        started.accept(id);
        String copied = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey(sourceKey).destinationBucket(bucket)
                .destinationKey(key).uploadId(id).partNumber(1).copySourceRange("bytes=0-" + (shared - 1)))
                .copyPartResult().eTag();
        String uploaded = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(2),
                RequestBody.fromBytes(fresh)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id).multipartUpload(m -> m.parts(
                CompletedPart.builder().partNumber(1).eTag(copied).build(),
                CompletedPart.builder().partNumber(2).eTag(uploaded).build())));
    }
}
