package io.promptcache.storage.s3;

import java.util.List;
import java.util.Map;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.BodySegment;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.ObjectMeta;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * GET/HEAD of objects (one range: zero-copy from RAM, with sendfile from a body file, or segment by segment when it
 * spans the extents of a shared body), bucket creation and deletion, object deletes.
 */
final class ReadHandlers {

    private final ObjectStore store;

    ReadHandlers(ObjectStore store) {
        this.store = store;
    }

    /** Reads of an object replaced in the instant between its metadata and its body start over, this often. */
    private static final int READ_ATTEMPTS = 3;

    /** How a read went. */
    enum Outcome {
        SERVED,
        /** The object was replaced or deleted between its metadata read and its body: read it again. */
        REPLACED,
        /** Declined on the event loop: its checked read is too long for it; serve it on a worker. */
        FOR_A_WORKER
    }

    /**
     * Serves a GET or HEAD of an object.
     *
     * @param onEventLoop whether this runs on the event loop (a long checked read is then declined)
     * @return {@link Outcome#SERVED}, or {@link Outcome#FOR_A_WORKER} (nothing was written)
     */
    Outcome getObject(RoutingContext ctx, S3Path path, boolean headOnly, boolean onEventLoop) {
        for (int attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
            Outcome outcome = tryGetObject(ctx, path, headOnly, onEventLoop);
            if (outcome != Outcome.REPLACED) {
                return outcome;
            }
        }
        throw new S3Exception(S3ErrorCode.INTERNAL_ERROR, "The object " + path.key() + " was replaced "
                + READ_ATTEMPTS + " times while it was being read. Retry the request.");
    }

    private Outcome tryGetObject(RoutingContext ctx, S3Path path, boolean headOnly, boolean onEventLoop) {
        ObjectMeta meta = store.head(path.bucket(), path.key());
        HttpServerResponse response = ctx.response();
        response.putHeader("ETag", S3Headers.quotedEtag(meta.etag()))
                .putHeader("Last-Modified", S3Headers.httpDate(meta.lastModified()));
        if (Preconditions.evaluate(ctx.request().headers(), meta) == Preconditions.Outcome.NOT_MODIFIED) {
            response.setStatusCode(304).end();
            return Outcome.SERVED;
        }
        String partNumber = ctx.request().getParam("partNumber");
        ByteRange range = partNumber == null
                ? ByteRange.parse(ctx.request().getHeader("Range"), meta.size())
                : part(ctx, meta, partNumber);
        long offset = range == null ? 0 : range.first();
        long length = range == null ? meta.size() : range.length();
        List<BodySegment> segments = List.of();
        if (!headOnly && length > 0) {
            // an event loop checks at most what is kept in memory and sent from there (about a millisecond from the
            // page cache); a longer checked read is a worker's
            if (onEventLoop && length > ObjectStore.KEPT_CHECKED_BYTES && store.options().verifyOnRead()) {
                return Outcome.FOR_A_WORKER;
            }
            segments = store.openRange(path.bucket(), path.key(), meta, offset, length);
            if (segments == null) {
                return Outcome.REPLACED;
            }
        }
        try {
            return send(ctx, path, meta, range, length, segments);
        } catch (RuntimeException e) {
            segments.forEach(BodySegment::release); // nothing was sent: the RAM views and the leases go
            throw e;
        }
    }

    private static Outcome send(RoutingContext ctx, S3Path path, ObjectMeta meta, ByteRange range, long length,
            List<BodySegment> segments) {
        HttpServerResponse response = ctx.response();
        response.putHeader("Content-Type", meta.contentType()).putHeader("Accept-Ranges", "bytes");
        // the client's checksum (kept with the headers) only when asked for, and only for the whole object
        boolean checksums = range == null && "ENABLED".equalsIgnoreCase(ctx.request().getHeader(ClientChecksums.MODE));
        boolean ownChecksum = false;
        for (Map.Entry<String, String> header : meta.headers().entrySet()) {
            if (!ClientChecksums.isChecksumHeader(header.getKey())) {
                response.putHeader(header.getKey(), header.getValue());
            } else if (checksums) {
                response.putHeader(header.getKey(), header.getValue());
                ownChecksum = true;
            }
        }
        meta.userMetadata().forEach((name, value) -> response.putHeader(S3Headers.USER_META_PREFIX + name, value));
        ResponseOverrides.apply(ctx.request(), response);
        if (checksums && !ownChecksum && !meta.isShared()) {
            // none from the client: the node's CRC32C of the whole body (a copy made of shared extents has none)
            response.putHeader("x-amz-checksum-crc32c", S3Headers.base64Crc(meta.crc32c()))
                    .putHeader(ClientChecksums.TYPE, "FULL_OBJECT");
        }
        response.setStatusCode(range == null ? 200 : 206);
        if (range != null) {
            response.putHeader("Content-Range", range.contentRange(meta.size()));
        }
        response.putHeader("Content-Length", Long.toString(length));
        if (segments.isEmpty()) {
            response.end();
        } else if (segments.size() == 1 && segments.get(0).body().ram() == null && !ctx.request().isSSL()) {
            // sendfile: the kernel sends the file's pages (under TLS it cannot: the bytes are encrypted first)
            BodySegment only = segments.get(0);
            response.sendFile(only.body().file().toString(), only.offset(), only.length())
                    .onComplete(sent -> only.finished()) // the lease on the file goes once it is sent
                    .onFailure(e -> S3Errors.send(ctx, new S3Exception(S3ErrorCode.NO_SUCH_KEY,
                            "The object was removed while it was being read: " + path.key(), e), path.resource()));
        } else {
            SegmentWriter.write(ctx, segments);
        }
        return Outcome.SERVED;
    }

    /**
     * The bytes of part {@code partNumber} of a multipart object (with {@code x-amz-mp-parts-count}); of any other
     * object, part 1 is the whole of it. {@code 400 InvalidPart} beyond the last part.
     */
    private static ByteRange part(RoutingContext ctx, ObjectMeta meta, String partNumber) {
        if (ctx.request().getHeader("Range") != null) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "Cannot specify both Range header and partNumber "
                    + "query parameter.");
        }
        int n = MultipartHandlers.partNumber(partNumber);
        if (n < 1 || n > 10_000) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part number must be an integer between 1 and "
                    + "10000, inclusive: " + partNumber);
        }
        List<Long> parts = meta.parts().isEmpty() ? List.of(meta.size()) : meta.parts();
        if (n > parts.size() || meta.size() == 0) {
            // 400 InvalidPart, as S3 answers (and the s3-tests conformance suite checks), not 416
            throw new S3Exception(S3ErrorCode.INVALID_PART, "The requested part number " + n + " is not "
                    + "satisfiable: the object has " + parts.size() + " part(s).");
        }
        if (!meta.parts().isEmpty()) {
            ctx.response().putHeader("x-amz-mp-parts-count", Integer.toString(parts.size()));
        }
        long first = parts.subList(0, n - 1).stream().mapToLong(Long::longValue).sum();
        return new ByteRange(first, first + parts.get(n - 1) - 1);
    }

    void headBucket(RoutingContext ctx, S3Path path) {
        store.bucketCreated(path.bucket());
        ctx.response().end();
    }

    void createBucket(RoutingContext ctx, S3Path path) {
        if (!store.createBucket(path.bucket())) {
            throw new S3Exception(S3ErrorCode.BUCKET_ALREADY_OWNED_BY_YOU);
        }
        ctx.response().putHeader("Location", "/" + path.bucket()).end();
    }

    void deleteBucket(RoutingContext ctx, S3Path path) {
        store.deleteBucket(path.bucket());
        ctx.response().setStatusCode(204).end();
    }

    void deleteObject(RoutingContext ctx, S3Path path) {
        store.delete(path.bucket(), path.key(), Preconditions.writeCondition(ctx.request().headers()));
        ctx.response().setStatusCode(204).end();
    }
}
