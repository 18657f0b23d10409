package io.promptcache.index.store;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.index.storage.StorageCallException;
import io.promptcache.schema.proto.NodeStatus;

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

    private final NodeStorage storage;

    ContinuationUploads(NodeStorage storage) {
        this.storage = storage;
    }

    /** An upload started on a node, its first part the parent's shared bytes. */
    public record Upload(String uploadId, String sharedEtag) {
    }

    /** Starts the upload of {@code key} (pinned: marked so on the node) and shares the parent's prefix into it. */
    public Upload start(Continuation c, String key, boolean pinned) {
        NodeStatus node = c.node();
        String uploadId = call(() -> storage.createUpload(node, key, pinned));
        try {
            return new Upload(uploadId, call(() -> storage.copyPart(node, key, uploadId, SHARED_PART,
                    c.parent().getBucket(), c.parent().getKey(), c.sharedBytes())));
        } catch (ApiException e) {
            abort(node, key, uploadId);
            throw e;
        }
    }

    /** Uploads the new bytes (streamed from the engine, no retry) and completes the object. */
    public void finish(NodeStatus node, String key, Upload upload, InputStream body, long bytes) {
        try {
            String etag = call(() -> storage.uploadPart(node, key, upload.uploadId(), NEW_PART, body, bytes));
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
        List<NodeStorage.Part> parts = call(() -> storage.parts(node, key, uploadId));
        NodeStorage.Part shared = part(parts, SHARED_PART);
        NodeStorage.Part fresh = part(parts, NEW_PART);
        if (shared == null || shared.size() != sharedBytes || fresh == null || fresh.size() != newBytes) {
            throw new ApiException(ApiErrorCode.NOT_UPLOADED, "the reservation's upload " + uploadId + " on node "
                    + node.getNodeId() + " does not hold the " + newBytes + " new bytes yet (part " + NEW_PART
                    + ": " + (fresh == null ? "missing" : fresh.size() + " bytes") + ")");
        }
        complete(node, key, uploadId, shared.etag(), fresh.etag());
    }

    /** A PUT URL for the new bytes (part 2 of the upload): presigned when the nodes use SigV4. */
    public String partUrl(NodeStatus node, String key, String uploadId, long bytes, Duration expiry) {
        return storage.uploadPartUrl(node, key, uploadId, NEW_PART, bytes, expiry);
    }

    private void complete(NodeStatus node, String key, String uploadId, String sharedEtag, String newPartEtag) {
        call(() -> {
            storage.complete(node, key, uploadId, List.of(new NodeStorage.Part(SHARED_PART, 0, sharedEtag),
                    new NodeStorage.Part(NEW_PART, 0, newPartEtag)));
            return null;
        });
    }

    /** Best effort: an upload left behind holds the parent's bytes until the node's owner aborts it. */
    public void abort(NodeStatus node, String key, String uploadId) {
        try {
            storage.abort(node, key, uploadId);
        } catch (StorageCallException e) {
            LOG.warnf("Could not abort upload %s of %s: %s", uploadId, key, e.getMessage());
        }
    }

    private static NodeStorage.Part part(List<NodeStorage.Part> parts, int number) {
        return parts.stream().filter(p -> p.number() == number).findFirst().orElse(null);
    }

    /** A 404 (the parent or the upload is gone) is 409 ContinuationUnavailable; anything else 503. */
    private static <T> T call(Supplier<T> request) {
        try {
            return request.get();
        } catch (StorageCallException e) {
            if (e.kind() == StorageCallException.Kind.NOT_FOUND) {
                throw new ApiException(ApiErrorCode.CONTINUATION_UNAVAILABLE, e.getMessage() + " (the parent "
                        + "object or the upload is gone); store the whole prompt (fromBlock 0)", e);
            }
            throw StorageFailures.nodeFailed(e);
        }
    }
}
