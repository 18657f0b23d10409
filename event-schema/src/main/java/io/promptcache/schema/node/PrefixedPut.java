package io.promptcache.schema.node;

/**
 * promptcache's one extension of S3 between index-service and its own storage nodes: a continuation in one PutObject
 * (docs/architecture.md, "One PUT per continuation") instead of CreateMultipartUpload, UploadPartCopy, UploadPart and
 * CompleteMultipartUpload. The PUT carries {@link #FROM} and {@link #BYTES}; the body is the bytes after the prefix.
 * A node serves it only when its heartbeat says so ({@code NodeStatus.prefix_puts}), and echoes {@link #BYTES} in its
 * answer: a server that ignored the headers (and stored the body alone) is told apart by the missing echo.
 */
public final class PrefixedPut {

    /** The parent object, {@code bucket/key}, percent-encoded as in {@code x-amz-copy-source}. */
    public static final String FROM = "x-promptcache-prefix-from";
    /** How many of the parent's first bytes the new object starts with (shared, not copied); echoed in the answer. */
    public static final String BYTES = "x-promptcache-prefix-bytes";

    private PrefixedPut() {
    }
}
