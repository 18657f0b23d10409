package io.promptcache.index.storage;

import java.io.InputStream;
import java.time.Duration;
import java.util.List;

import io.promptcache.schema.proto.NodeStatus;

/**
 * The S3 calls index-service makes on a storage node, and the URLs it hands engines for their own calls. Failures
 * raise {@link StorageCallException}; nothing else of the S3 client leaks out. Writes go to the node's bucket
 * ({@link #bucket(NodeStatus)}: this replica's, or an external endpoint's own); reads and copies name the bucket an
 * object's record gives.
 */
public interface NodeStorage {

    /** The bucket new objects are written to on {@code node}. */
    String bucket(NodeStatus node);

    /**
     * Readies a node for writes: the bucket exists (created if not). Cheap after the first success per node. Nothing
     * for an external endpoint (its probe does it, as its configuration says).
     */
    void prepare(NodeStatus node);

    /**
     * Probes an external endpoint: HEAD of its bucket, created first when it is missing and its configuration says so.
     *
     * @throws StorageCallException why the endpoint cannot take promptcache's objects now
     */
    void probe(NodeStatus node);

    /**
     * PUTs {@code bytes} bytes read from {@code body} (streamed; not retried, the stream cannot be read twice); a pinned
     * object carries the node's pin marker (event-schema {@code NodeMarkers}).
     */
    void put(NodeStatus node, String key, InputStream body, long bytes, boolean pinned);

    /**
     * A continuation in one PutObject on promptcache's own node (event-schema {@code PrefixedPut}; only for a node
     * whose status says {@code prefix_puts}): the object is the first {@code prefixBytes} of
     * {@code sourceBucket/sourceKey}, shared, then {@code bytes} bytes streamed from {@code body} (not retried).
     * {@link StorageCallException.Kind#NOT_FOUND} when the parent is gone; {@link StorageCallException.Kind#REFUSED}
     * when the node did not take the prefix (what it stored is deleted).
     */
    void putPrefixed(NodeStatus node, String key, boolean pinned, String sourceBucket, String sourceKey,
            long prefixBytes, InputStream body, long bytes);

    /**
     * Marks an object the engine PUT itself (two-step store) as pinned, so the node never deletes it on its own: a
     * CopyObject of it onto itself with the pin marker ({@code REPLACE}: the engine's PUT set no metadata of ours).
     * Nothing on an external endpoint, which deletes nothing on its own (and might copy the bytes to set metadata).
     */
    void pin(NodeStatus node, String key);

    /** Deletes an object this replica wrote and could not register; a failure is logged, not thrown. */
    void deleteQuietly(NodeStatus node, String key);

    /** The size of an object, by a HEAD ({@link StorageCallException.Kind#NOT_FOUND} if absent). */
    long size(NodeStatus node, String bucket, String key);

    /** One range GET ({@code range} null: the whole object); the caller closes the body. */
    Body get(NodeStatus node, String bucket, String key, String range);

    /** Starts a multipart upload (pinned: with the pin marker); returns its id. */
    String createUpload(NodeStatus node, String key, boolean pinned);

    /** UploadPartCopy of the first {@code bytes} of {@code sourceBucket/sourceKey}; returns the part's ETag. */
    String copyPart(NodeStatus node, String key, String uploadId, int part, String sourceBucket, String sourceKey,
            long bytes);

    /** UploadPart of {@code bytes} streamed from {@code body} (not retried); returns the part's ETag. */
    String uploadPart(NodeStatus node, String key, String uploadId, int part, InputStream body, long bytes);

    /** The parts uploaded so far. */
    List<Part> parts(NodeStatus node, String key, String uploadId);

    /** Completes the upload from {@code parts}, in order. */
    void complete(NodeStatus node, String key, String uploadId, List<Part> parts);

    /** Aborts the upload. */
    void abort(NodeStatus node, String key, String uploadId);

    /**
     * Whether calls to {@code node} are SigV4-signed and its URLs presigned (storage credentials configured; always
     * for an external endpoint).
     */
    boolean signed(NodeStatus node);

    /** A GET URL of an object for an engine: presigned when signed, else plain. */
    String getUrl(NodeStatus node, String bucket, String key);

    /** A PUT URL for {@code bytes} bytes, valid for {@code expiry}: presigned when signed, else plain. */
    String putUrl(NodeStatus node, String key, long bytes, Duration expiry);

    /** A PUT URL for part {@code part} of an upload: presigned when signed, else plain. */
    String uploadPartUrl(NodeStatus node, String key, String uploadId, int part, long bytes, Duration expiry);

    /** An uploaded part. */
    record Part(int number, long size, String etag) {
    }

    /**
     * A GET's answer.
     *
     * @param in the bytes
     * @param length Content-Length
     * @param contentRange Content-Range for a range GET, else null
     */
    record Body(InputStream in, long length, String contentRange) {
    }
}
