package io.promptcache.index.store;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.promptcache.index.api.ApiException;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.proto.NodeStatus;

import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A continuation on its node, with the standard S3 calls: CreateMultipartUpload, UploadPartCopy of the parent's
 * first {@code sharedBytes} as part 1 (shared by reference on our nodes, so the parent's bytes are held from then on
 * even if it is evicted), UploadPart of the new bytes as part 2, CompleteMultipartUpload. Any S3 server serves the
 * same calls (by copying bytes). A failed continuation is aborted, so nothing is left on the node.
 */
@ApplicationScoped
public class ContinuationUploads {

    private static final Logger LOG = Logger.getLogger(ContinuationUploads.class);
    static final int SHARED_PART = 1;
    static final int NEW_PART = 2;

    private final StorageClients storage;
    private final IndexConfig config;

    ContinuationUploads(StorageClients storage, IndexConfig config) {
        this.storage = storage;
        this.config = config;
    }

    /** An upload started on a node, its first part the parent's shared bytes. */
    public record Upload(String uploadId, String sharedEtag) {
    }

    /** Starts the upload of {@code key} and shares the parent's prefix into it. */
    public Upload start(Continuation c, String key) {
        NodeStatus node = c.node();
        String uploadId = call(node, "create the upload", () -> storage.client().createMultipartUpload(b -> b
                .bucket(bucket()).key(key).contentType("application/octet-stream")
                .overrideConfiguration(storage.at(node.getEndpoint()))).uploadId());
        try {
            return new Upload(uploadId, call(node, "share the parent's bytes", () -> storage.client()
                    .uploadPartCopy(b -> b.sourceBucket(c.parent().getBucket()).sourceKey(c.parent().getKey())
                            .destinationBucket(bucket()).destinationKey(key).uploadId(uploadId)
                            .partNumber(SHARED_PART).copySourceRange("bytes=0-" + (c.sharedBytes() - 1))
                            .overrideConfiguration(storage.at(node.getEndpoint())))
                    .copyPartResult().eTag()));
        } catch (ApiException e) {
            abort(node, key, uploadId);
            throw e;
        }
    }

    /** Uploads the new bytes (streamed from the engine, no retry) and completes the object. */
    public void finish(NodeStatus node, String key, Upload upload, InputStream body, long bytes) {
        try {
            String etag = call(node, "take the new bytes", () -> storage.client().uploadPart(b -> b.bucket(bucket())
                    .key(key).uploadId(upload.uploadId()).partNumber(NEW_PART).contentLength(bytes)
                    .overrideConfiguration(storage.once(node.getEndpoint())), RequestBody.fromInputStream(body,
                            bytes))
                    .eTag());
            complete(node, key, upload.uploadId(), upload.sharedEtag(), etag);
        } catch (ApiException e) {
            abort(node, key, upload.uploadId());
            throw e;
        }
    }

    /**
     * Completes an upload whose new bytes the engine PUT itself (two-step store), after checking both parts are
     * there with the expected sizes.
     */
    public void completeUploaded(NodeStatus node, String key, String uploadId, long sharedBytes, long newBytes) {
        List<Part> parts = call(node, "list the parts", () -> storage.client().listParts(b -> b.bucket(bucket())
                .key(key).uploadId(uploadId).overrideConfiguration(storage.at(node.getEndpoint()))).parts());
        Part shared = part(parts, SHARED_PART);
        Part fresh = part(parts, NEW_PART);
        if (shared == null || shared.size() != sharedBytes || fresh == null || fresh.size() != newBytes) {
            throw new ApiException(409, "NotUploaded", "the reservation's upload " + uploadId + " on node "
                    + node.getNodeId() + " does not hold the " + newBytes + " new bytes yet (part " + NEW_PART
                    + ": " + (fresh == null ? "missing" : fresh.size() + " bytes") + ")");
        }
        complete(node, key, uploadId, shared.eTag(), fresh.eTag());
    }

    /** A PUT URL for the new bytes (part 2 of the upload): presigned when the nodes use SigV4. */
    public String partUrl(NodeStatus node, String key, String uploadId, long bytes, Duration expiry) {
        return storage.uploadPartUrl(node.getEndpoint(), bucket(), key, uploadId, NEW_PART, bytes, expiry);
    }

    private void complete(NodeStatus node, String key, String uploadId, String sharedEtag, String newPartEtag) {
        call(node, "complete the object", () -> storage.client().completeMultipartUpload(b -> b.bucket(bucket())
                .key(key).uploadId(uploadId).multipartUpload(m -> m.parts(
                        CompletedPart.builder().partNumber(SHARED_PART).eTag(sharedEtag).build(),
                        CompletedPart.builder().partNumber(NEW_PART).eTag(newPartEtag).build()))
                .overrideConfiguration(storage.at(node.getEndpoint()))));
    }

    /** Best effort: an upload left behind holds the parent's bytes until the node's owner aborts it. */
    public void abort(NodeStatus node, String key, String uploadId) {
        try {
            storage.client().abortMultipartUpload(b -> b.bucket(bucket()).key(key).uploadId(uploadId)
                    .overrideConfiguration(storage.at(node.getEndpoint())));
        } catch (SdkException e) {
            LOG.warnf("Could not abort upload %s of %s on node %s: %s", uploadId, key, node.getNodeId(),
                    e.getMessage());
        }
    }

    private static Part part(List<Part> parts, int number) {
        return parts.stream().filter(p -> p.partNumber() == number).findFirst().orElse(null);
    }

    private <T> T call(NodeStatus node, String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                throw new ApiException(409, "ContinuationUnavailable", "node " + node.getNodeId() + " could not "
                        + what + ": " + e.awsErrorDetails().errorCode() + " (the parent object or the upload is"
                        + " gone); store the whole prompt (fromBlock 0)");
            }
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId() + " failed to "
                    + what + ": " + e.getMessage() + "; nothing was advertised", config.retryAfter(), e);
        } catch (SdkException e) {
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId() + " failed to "
                    + what + ": " + e.getMessage() + "; nothing was advertised", config.retryAfter(), e);
        }
    }

    private String bucket() {
        return config.store().bucket();
    }
}
