package io.promptcache.storage.s3;

import java.io.IOException;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.node.PrefixedPut;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.MultipartUploads;
import io.promptcache.storage.store.ObjectHeaders;
import io.promptcache.storage.store.ObjectMeta;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.ObjectUpload;
import io.promptcache.storage.store.WriteCondition;
import io.vertx.core.MultiMap;

/**
 * A continuation in one PutObject, promptcache's extension of S3 (docs/architecture.md, "One PUT per continuation"):
 * {@value PrefixedPut#FROM} names the parent ({@code bucket/key}, as {@code x-amz-copy-source} does) and
 * {@value PrefixedPut#BYTES} how many of its first bytes the new object starts with; the body is the rest. The node
 * serves it with the steps of the four S3 calls it replaces, in process: an upload, its part 1 sharing the parent's
 * bytes by reference (UploadPartCopy), part 2 the body, then the completion, whose one batch makes the object
 * visible. A failure at any step aborts the upload, so nothing is left but what a crash leaves of any upload.
 */
final class PrefixedPuts {

    private static final Logger LOG = LoggerFactory.getLogger(PrefixedPuts.class);
    private static final int SHARED_PART = 1;
    private static final int BODY_PART = 2;

    private final ObjectStore store;

    PrefixedPuts(ObjectStore store) {
        this.store = store;
    }

    /** What a PUT asks to start with: the parent and how many of its first bytes. */
    record Prefix(S3Path source, long bytes) {
    }

    /** The prefix a PUT's headers ask for, or null for a plain PUT; {@code 400 InvalidArgument} if malformed. */
    static Prefix of(MultiMap headers) {
        String from = headers.get(PrefixedPut.FROM);
        String bytes = headers.get(PrefixedPut.BYTES);
        if (from == null && bytes == null) {
            return null;
        }
        if (from == null || bytes == null) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, PrefixedPut.FROM + " and " + PrefixedPut.BYTES
                    + " go together: the parent object and how many of its first bytes the new object starts with.");
        }
        long count;
        try {
            count = Long.parseLong(bytes.trim());
        } catch (NumberFormatException e) {
            count = -1;
        }
        if (count <= 0) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, PrefixedPut.BYTES + " must be a positive number of "
                    + "bytes, not " + bytes);
        }
        return new Prefix(CopyHandlers.source(from), count);
    }

    /** A prefixed PUT under way: its upload, whose part 1 shares the parent's bytes, and the body's part. */
    record Started(String bucket, String key, String uploadId, String sharedEtag, ObjectUpload body) {
    }

    /**
     * Starts a prefixed PUT of {@code path}: {@code NoSuchKey} if the parent is gone, {@code InvalidArgument} if it
     * is shorter than the prefix, the write condition checked now (and again at the completion).
     */
    Started begin(S3Path path, Prefix prefix, long declaredLength, ObjectHeaders headers, WriteCondition condition)
            throws IOException {
        store.checkCondition(path.bucket(), path.key(), condition);
        ObjectMeta source = store.head(prefix.source().bucket(), prefix.source().key());
        if (prefix.bytes() > source.size()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The prefix of " + prefix.bytes() + " bytes is longer "
                    + "than " + prefix.source().resource() + " (" + source.size() + " bytes).");
        }
        MultipartUploads uploads = store.multipart();
        String uploadId = uploads.create(path.bucket(), path.key(), headers);
        try {
            ObjectMeta shared = uploads.copyPart(path.bucket(), path.key(), uploadId, SHARED_PART, source, 0,
                    prefix.bytes());
            store.used(prefix.source().bucket(), prefix.source().key(), source, 0, prefix.bytes());
            ObjectUpload body = uploads.beginPart(path.bucket(), path.key(), uploadId, BODY_PART, declaredLength);
            return new Started(path.bucket(), path.key(), uploadId, shared.etag(), body);
        } catch (IOException | RuntimeException e) {
            abort(path.bucket(), path.key(), uploadId);
            throw e;
        }
    }

    /** Completes the object from the shared part and the body's part, once the body is committed as part 2. */
    ObjectMeta complete(Started started, ObjectMeta bodyPart, WriteCondition condition) throws IOException {
        return store.multipart().complete(started.bucket(), started.key(), started.uploadId(),
                List.of(new MultipartUploads.PartRef(SHARED_PART, started.sharedEtag()),
                        new MultipartUploads.PartRef(BODY_PART, bodyPart.etag())),
                condition);
    }

    /** Aborts a started PUT's upload (its caller has aborted the body, {@code PutBody.abort}); best effort. */
    void abort(Started started) {
        abort(started.bucket(), started.key(), started.uploadId());
    }

    private void abort(String bucket, String key, String uploadId) {
        try {
            store.multipart().abort(bucket, key, uploadId);
        } catch (RuntimeException e) {
            LOG.warn("Could not abort the upload {} of a prefixed PUT of {}/{}: {}", uploadId, bucket, key,
                    e.getMessage());
        }
    }
}
