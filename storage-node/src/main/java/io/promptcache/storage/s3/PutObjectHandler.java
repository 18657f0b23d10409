package io.promptcache.storage.s3;

import java.nio.ByteBuffer;
import java.util.Locale;

import io.promptcache.schema.node.PrefixedPut;
import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.ObjectHeaders;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.WriteCondition;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.buffer.impl.BufferImpl;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * PutObject, streaming: the request is paused while the upload starts on a worker thread, body chunks then go
 * straight into the upload's temporary file (page-cache writes), and the commit (fsync, rename, metadata) runs on
 * a worker again. The body is never held in memory as a whole. A PutObject with promptcache's prefix headers is a
 * continuation in one call ({@link PrefixedPuts}); UploadPart streams the same way into its part.
 */
final class PutObjectHandler {

    private final ObjectStore store;
    private final PrefixedPuts prefixedPuts;
    private final long maxObjectBytes;
    /** Whether prefixed PUTs are served (else refused with 501). */
    private final boolean prefixPuts;

    PutObjectHandler(ObjectStore store, long maxObjectBytes, boolean prefixPuts) {
        this.store = store;
        this.prefixedPuts = new PrefixedPuts(store);
        this.maxObjectBytes = maxObjectBytes;
        this.prefixPuts = prefixPuts;
    }

    void handle(RoutingContext ctx, S3Path path) {
        HttpServerRequest req = ctx.request();
        req.pause();
        MultiMap headers = req.headers();
        boolean awsChunked = isAwsChunked(headers);
        long declared = declaredLength(headers, awsChunked);
        if (declared > maxObjectBytes) {
            throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE, "Your proposed upload of " + declared
                    + " bytes exceeds the maximum object size of " + maxObjectBytes + " bytes.");
        }
        String algorithm = checksumAlgorithm(headers);
        ChecksumVerifier checksum = ChecksumVerifier.forAlgorithm(algorithm);
        String headerChecksum = algorithm == null ? null : headers.get(ClientChecksums.PREFIX + algorithm);
        byte[] md5 = S3Headers.contentMd5(headers.get("Content-MD5"));
        ObjectHeaders objectHeaders = S3Headers.objectHeaders(headers);
        // Registered before the upload exists: a client that disconnects while it is being opened must still
        // get its upload aborted. Both this handler and the completion below run on the request's event loop.
        PutState state = new PutState(ctx.vertx());
        req.exceptionHandler(e -> state.fail());
        String uploadId = req.getParam("uploadId");
        PrefixedPuts.Prefix prefix = PrefixedPuts.of(headers);
        if (prefix != null && !prefixPuts) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "Prefixed PUTs are off on this node "
                    + "(promptcache.storage.prefix-puts=false); nothing was done.");
        }
        WriteCondition condition = Preconditions.writeCondition(headers);
        SigningContext signing = Authenticator.signing(ctx);
        ctx.vertx().executeBlocking(() -> {
            if (prefix != null) {
                PrefixedPuts.Started started = prefixedPuts.begin(path, prefix, declared, objectHeaders, condition);
                return new Opened(new PutBody(started.body(), awsChunked, checksum, headerChecksum, md5, signing),
                        started);
            }
            return new Opened(new PutBody(uploadId == null
                    ? store.beginPut(path.bucket(), path.key(), declared, objectHeaders, condition)
                    : store.multipart().beginPart(path.bucket(), path.key(), uploadId,
                            MultipartHandlers.partNumber(req.getParam("partNumber")), declared),
                    awsChunked, checksum, headerChecksum, md5, signing), null);
        }, false).onComplete(opened -> {
            if (opened.failed()) {
                S3Errors.send(ctx, opened.cause(), path.resource());
                return;
            }
            state.body = opened.result().body();
            state.prefixed = opened.result().prefixed();
            if (state.failed) {
                state.abort();
            } else {
                stream(ctx, path, state, prefix, condition);
            }
        });
    }

    /** A PUT's body, opened on a worker; {@code prefixed}: the prefixed PUT it is the body of, or null. */
    private record Opened(PutBody body, PrefixedPuts.Started prefixed) {
    }

    /** One PUT's progress, touched only on the request's event loop. */
    private final class PutState {

        private final Vertx vertx;
        private PutBody body;
        private PrefixedPuts.Started prefixed;
        private boolean failed;

        PutState(Vertx vertx) {
            this.vertx = vertx;
        }

        /** Stops the upload; true the first time. */
        boolean fail() {
            if (failed) {
                return false;
            }
            failed = true;
            abort();
            return true;
        }

        /** Aborts what was opened (the body, and a prefixed PUT's upload). */
        void abort() {
            if (body != null) {
                body.abort();
            }
            if (prefixed != null) {
                PrefixedPuts.Started started = prefixed;
                prefixed = null;
                // the upload's abort writes the node's records: a worker's job
                vertx.executeBlocking(() -> {
                    prefixedPuts.abort(started);
                    return null;
                }, false);
            }
        }
    }

    private void stream(RoutingContext ctx, S3Path path, PutState state, PrefixedPuts.Prefix prefix,
            WriteCondition condition) {
        HttpServerRequest req = ctx.request();
        PutBody body = state.body;
        req.handler(buffer -> {
            if (state.failed) {
                return;
            }
            try {
                body.feed(nioView(buffer));
            } catch (Exception e) {
                state.fail();
                S3Errors.send(ctx, e, path.resource());
            }
        });
        req.endHandler(v -> {
            if (state.failed) {
                return;
            }
            PrefixedPuts.Started started = state.prefixed;
            ctx.vertx().executeBlocking(() -> started == null
                    ? body.commit()
                    : prefixedPuts.complete(started, body.commit(), condition), false).onComplete(result -> {
                        if (result.failed()) {
                            state.abort();
                            S3Errors.send(ctx, result.cause(), path.resource());
                            return;
                        }
                        ctx.response().putHeader("ETag", S3Headers.quotedEtag(result.result().etag()));
                        body.verifiedChecksum().forEach(ctx.response()::putHeader);
                        if (prefix != null) {
                            ctx.response().putHeader(PrefixedPut.BYTES, Long.toString(prefix.bytes()));
                        }
                        ctx.response().end();
                    });
        });
        req.resume();
    }

    /** The chunk's bytes without copying them (Vert.x 4 hands request chunks over as BufferImpl). */
    private static ByteBuffer nioView(Buffer buffer) {
        return buffer instanceof BufferImpl impl ? impl.byteBuf().nioBuffer() : ByteBuffer.wrap(buffer.getBytes());
    }

    /**
     * Whether the body is aws-chunked framing, as S3 decides: its payload hash is one of the {@code STREAMING-*}
     * values. Without a payload hash (an anonymous request) the framing is {@code Content-Encoding: aws-chunked} with
     * the decoded length the framing needs; a client's own {@code aws-chunked} on a body it did not frame (a payload
     * hash that is not streaming, or no decoded length) is only an encoding: the bytes are stored as sent.
     */
    private static boolean isAwsChunked(MultiMap headers) {
        String sha = headers.get(S3Headers.CONTENT_SHA256);
        if (sha != null) {
            return sha.startsWith("STREAMING-");
        }
        String encoding = headers.get("Content-Encoding");
        return encoding != null && encoding.toLowerCase(Locale.ROOT).contains("aws-chunked")
                && headers.contains(S3Headers.DECODED_LENGTH);
    }

    private static long declaredLength(MultiMap headers, boolean awsChunked) {
        String value = awsChunked ? headers.get(S3Headers.DECODED_LENGTH) : headers.get("Content-Length");
        if (value == null) {
            return -1;
        }
        try {
            long n = Long.parseLong(value.trim());
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid content length: " + value);
        }
    }

    /** The checksum algorithm of an x-amz-checksum-* header, an x-amz-trailer, or x-amz-sdk-checksum-algorithm. */
    private static String checksumAlgorithm(MultiMap headers) {
        for (String name : headers.names()) {
            String algorithm = ClientChecksums.algorithmOf(name);
            if (algorithm != null) {
                return algorithm;
            }
        }
        String trailer = headers.get(S3Headers.TRAILER);
        if (trailer != null) {
            String algorithm = ClientChecksums.algorithmOf(trailer.trim());
            if (algorithm != null) {
                return algorithm;
            }
        }
        return null;
    }
}
