package io.promptcache.storage.s3;

import java.nio.ByteBuffer;
import java.util.Locale;

import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.ObjectHeaders;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.WriteCondition;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.buffer.impl.BufferImpl;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * PutObject, streaming: the request is paused while the upload starts on a worker thread, body chunks then go
 * straight into the upload's temporary file (page-cache writes), and the commit (fsync, rename, metadata) runs on
 * a worker again. The body is never held in memory as a whole.
 */
final class PutObjectHandler {

    private final ObjectStore store;
    private final long maxObjectBytes;

    PutObjectHandler(ObjectStore store, long maxObjectBytes) {
        this.store = store;
        this.maxObjectBytes = maxObjectBytes;
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
        PutState state = new PutState();
        req.exceptionHandler(e -> state.fail());
        String uploadId = req.getParam("uploadId");
        WriteCondition condition = Preconditions.writeCondition(headers);
        SigningContext signing = Authenticator.signing(ctx);
        ctx.vertx().executeBlocking(
                () -> new PutBody(uploadId == null
                        ? store.beginPut(path.bucket(), path.key(), declared, objectHeaders, condition)
                        : store.multipart().beginPart(path.bucket(), path.key(), uploadId,
                                MultipartHandlers.partNumber(req.getParam("partNumber")), declared),
                        awsChunked, checksum, headerChecksum, md5, signing),
                false)
                .onComplete(opened -> {
                    if (opened.failed()) {
                        S3Errors.send(ctx, opened.cause(), path.resource());
                    } else if (state.failed) {
                        opened.result().abort();
                    } else {
                        state.body = opened.result();
                        stream(ctx, path, state);
                    }
                });
    }

    /** One PUT's progress, touched only on the request's event loop. */
    private static final class PutState {

        private PutBody body;
        private boolean failed;

        /** Stops the upload; true the first time. */
        boolean fail() {
            if (failed) {
                return false;
            }
            failed = true;
            if (body != null) {
                body.abort();
            }
            return true;
        }
    }

    private void stream(RoutingContext ctx, S3Path path, PutState state) {
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
            ctx.vertx().executeBlocking(body::commit, false).onComplete(result -> {
                if (result.failed()) {
                    body.abort();
                    S3Errors.send(ctx, result.cause(), path.resource());
                    return;
                }
                ctx.response().putHeader("ETag", S3Headers.quotedEtag(result.result().etag()));
                body.verifiedChecksum().forEach(ctx.response()::putHeader);
                ctx.response().end();
            });
        });
        req.resume();
    }

    /** The chunk's bytes without copying them (Vert.x 4 hands request chunks over as BufferImpl). */
    private static ByteBuffer nioView(Buffer buffer) {
        return buffer instanceof BufferImpl impl ? impl.byteBuf().nioBuffer() : ByteBuffer.wrap(buffer.getBytes());
    }

    private static boolean isAwsChunked(MultiMap headers) {
        String encoding = headers.get("Content-Encoding");
        String sha = headers.get(S3Headers.CONTENT_SHA256);
        return (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("aws-chunked"))
                || (sha != null && sha.startsWith("STREAMING-"));
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
