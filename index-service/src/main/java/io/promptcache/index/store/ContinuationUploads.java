package io.promptcache.index.store;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>When the engine sent only the new bytes (nothing to fall back to if the copy fails), the copy runs beside the
 * upload of the new bytes ({@code overlap}): three round trips in a row instead of four; and on promptcache's own
 * nodes that take it ({@code NodeStatus.prefix_puts}) the four calls are one, a prefixed PutObject (event-schema
 * {@code PrefixedPut}, docs/architecture.md "One PUT per continuation"), which the node completes or aborts itself.
 */
@ApplicationScoped
public class ContinuationUploads {

    private static final Logger LOG = LoggerFactory.getLogger(ContinuationUploads.class);
    static final int SHARED_PART = 1;
    static final int NEW_PART = 2;

    private final NodeStorage storage;
    private final CopyWrites copyWrites;
    /** Copies of shared parts that overlap an upload: at most one per copy of a store in flight. */
    private final ExecutorService copies = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "continuation-copy");
        t.setDaemon(true);
        return t;
    });

    ContinuationUploads(NodeStorage storage, CopyWrites copyWrites) {
        this.storage = storage;
        this.copyWrites = copyWrites;
    }

    /**
     * An upload started on a node, its first part the parent's shared bytes (copied, or being copied); or, with
     * {@code prefix}, a prefixed PUT still to send (no upload id: the node makes and completes its own).
     */
    public record Upload(NodeStatus node, String uploadId, CompletableFuture<String> sharedEtag, Prefix prefix) {

        Upload(NodeStatus node, String uploadId, CompletableFuture<String> sharedEtag) {
            this(node, uploadId, sharedEtag, null);
        }
    }

    /** What a prefixed PUT shares: the parent's first {@code bytes}; {@code pinned}: the new object is pinned. */
    public record Prefix(String bucket, String key, long bytes, boolean pinned) {
    }

    /**
     * Starts the upload of {@code key} on each of the continuation's nodes (see {@link #start(Continuation,
     * NodeStatus, String, boolean, boolean)}); a node where it fails is left out. Returns the uploads started, the
     * first node's first.
     *
     * @throws ApiException the first node's failure, when none started
     */
    public List<Upload> start(Continuation c, String key, boolean pinned, boolean overlap) {
        List<Upload> started = new ArrayList<>(c.nodes().size());
        ApiException first = null;
        for (NodeStatus node : c.nodes()) {
            try {
                started.add(start(c, node, key, pinned, overlap));
            } catch (ApiException e) {
                first = first == null ? e : first;
                LOG.debug("Continuation copy of {} on {} not started: {}", key, node.getNodeId(), e.getMessage());
            }
        }
        if (started.isEmpty()) {
            throw first;
        }
        return started;
    }

    /**
     * Starts the upload of {@code key} on {@code node} (pinned: marked so on the node) and shares the parent's
     * prefix into it: before returning, or, with {@code overlap}, beside what the caller does next ({@link #finish}
     * waits for it). A failed copy without overlap is thrown here, before the caller reads the engine's body (it
     * can still store it whole).
     */
    private Upload start(Continuation c, NodeStatus node, String key, boolean pinned, boolean overlap) {
        if (overlap && node.getPrefixPuts() && !node.hasExternal()) {
            return new Upload(node, null, null, new Prefix(c.parent().getBucket(), c.parent().getKey(),
                    c.sharedBytes(), pinned));
        }
        String uploadId = call(() -> storage.createUpload(node, key, pinned));
        Supplier<String> copy = () -> call(() -> storage.copyPart(node, key, uploadId, SHARED_PART,
                c.parent().getBucket(), c.parent().getKey(), c.sharedBytes()));
        if (overlap) {
            return new Upload(node, uploadId, CompletableFuture.supplyAsync(copy, copies));
        }
        try {
            return new Upload(node, uploadId, CompletableFuture.completedFuture(copy.get()));
        } catch (ApiException e) {
            abort(node, key, uploadId);
            throw e;
        }
    }

    /**
     * Uploads the new bytes (streamed from the engine once, no retry) into every upload and completes each object;
     * an upload that fails is aborted and left out. Returns the nodes whose copy is complete, in order.
     *
     * @throws ApiException the first copy's failure, when none completed
     */
    public List<NodeStatus> finish(String key, List<Upload> uploads, InputStream body, long bytes) {
        return copyWrites.fanOut(uploads, u -> u.node().getNodeId(), key, body, (upload, in) -> finish(key, upload,
                in, bytes)).stream().map(Upload::node).toList();
    }

    private void finish(String key, Upload upload, InputStream body, long bytes) {
        NodeStatus node = upload.node();
        Prefix prefix = upload.prefix();
        if (prefix != null) {
            call(() -> {
                try {
                    storage.putPrefixed(node, key, prefix.pinned(), prefix.bucket(), prefix.key(), prefix.bytes(),
                            body, bytes);
                } catch (StorageCallException e) {
                    throw e.kind() == StorageCallException.Kind.UNREACHABLE && parentGone(node, prefix)
                            ? new StorageCallException(StorageCallException.Kind.NOT_FOUND, e.getMessage()
                                    + "; its parent " + prefix.key() + " is gone from it", e)
                            : e;
                }
                return null;
            });
            return;
        }
        try {
            String etag = call(() -> storage.uploadPart(node, key, upload.uploadId(), NEW_PART, body, bytes));
            complete(node, key, upload.uploadId(), shared(upload), etag);
        } catch (ApiException e) {
            abort(node, key, upload.uploadId());
            throw e;
        }
    }

    /**
     * A further copy of a continuation a two-step store completed on {@code from}: on {@code to}, the parent's copy
     * there shared as part 1, the new bytes read back from {@code from} (one range GET) as part 2.
     *
     * @throws ApiException when the copy could not be made (the caller leaves it out)
     */
    public void copyTo(Continuation c, NodeStatus from, NodeStatus to, String key, boolean pinned, long totalBytes) {
        Upload upload = start(c, to, key, pinned, false);
        long newBytes = totalBytes - c.sharedBytes();
        NodeStorage.Body fresh = call(() -> storage.get(from, storage.bucket(from), key, "bytes=" + c.sharedBytes()
                + "-" + (totalBytes - 1)));
        try (InputStream in = fresh.in()) {
            finish(key, upload, in, newBytes);
        } catch (IOException e) {
            abort(to, key, upload.uploadId());
            throw StorageFailures.nodeFailed(new StorageCallException(StorageCallException.Kind.UNREACHABLE,
                    "reading the new bytes back from " + from.getNodeId() + " failed: " + e.getMessage(), e));
        }
    }

    /** The shared part's ETag once copied; the copy's own failure as it was raised. */
    private static String shared(Upload upload) {
        try {
            return upload.sharedEtag().join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    @PreDestroy
    void stop() {
        copies.shutdownNow();
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
            LOG.warn("Could not abort upload {} of {}: {}", uploadId, key, e.getMessage());
        }
    }

    private static NodeStorage.Part part(List<NodeStorage.Part> parts, int number) {
        return parts.stream().filter(p -> p.number() == number).findFirst().orElse(null);
    }

    /**
     * Whether the parent a prefixed PUT shares is gone from {@code node}. A node that finds it gone answers 404
     * before it reads the body, reads at most 1 MiB of the body so the client sees the answer, and closes the
     * connection after it: with more to send, the answer can be lost with the connection (a reset while the body is
     * written), so the index asks the node about the parent before it calls the node failed.
     */
    private boolean parentGone(NodeStatus node, Prefix prefix) {
        try {
            storage.size(node, prefix.bucket(), prefix.key());
            return false;
        } catch (StorageCallException e) {
            return e.kind() == StorageCallException.Kind.NOT_FOUND;
        }
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
