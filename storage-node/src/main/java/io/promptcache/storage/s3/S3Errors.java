package io.promptcache.storage.s3;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/** The one place that turns a failure into an S3 XML error response. Never a stack trace to a client. */
final class S3Errors {

    private static final Logger LOG = LoggerFactory.getLogger(S3Errors.class);

    private S3Errors() {
    }

    /** Bytes of an unwanted body read (and dropped) so the client sees the error rather than a reset. */
    private static final long DRAIN_LIMIT_BYTES = 1 << 20;
    /** How long a client may take to finish sending an unwanted body before the connection is closed. */
    private static final long DRAIN_LIMIT_MILLIS = 5_000;

    /**
     * A body we will not read: drained (bounded in bytes and time, so the client is not reset before it reads the
     * error), and the connection closed after the error.
     */
    private static void drainUnreadBody(RoutingContext ctx) {
        if (ctx.request().isEnded()) {
            return;
        }
        ctx.response().putHeader("Connection", "close");
        long[] drained = {0};
        try {
            ctx.request().handler(chunk -> {
                drained[0] += chunk.length();
                if (drained[0] > DRAIN_LIMIT_BYTES) {
                    ctx.request().connection().close();
                }
            }).resume();
        } catch (IllegalStateException endedMeanwhile) {
            return;
        }
        ctx.vertx().setTimer(DRAIN_LIMIT_MILLIS, id -> {
            if (!ctx.request().isEnded()) {
                ctx.request().connection().close();
            }
        });
    }

    static void send(RoutingContext ctx, Throwable failure, String resource) {
        S3Exception error;
        if (failure instanceof S3Exception s3) {
            error = s3;
        } else {
            LOG.error("Internal error serving {} {}", ctx.request().method(), resource, failure);
            error = new S3Exception(S3ErrorCode.INTERNAL_ERROR);
        }
        HttpServerResponse response = ctx.response();
        if (response.headWritten()) {
            // too late for an error document: cut the connection so the client sees a failed transfer
            ctx.request().connection().close();
            return;
        }
        drainUnreadBody(ctx);
        String requestId = response.headers().get(S3Headers.REQUEST_ID);
        response.setStatusCode(error.error().status());
        if (error instanceof ByteRange.UnsatisfiableRangeException unsatisfiable) {
            response.putHeader("Content-Range", "bytes */" + unsatisfiable.size());
        }
        if (ctx.request().method() == HttpMethod.HEAD) {
            response.end();
            return;
        }
        response.putHeader("Content-Type", S3Xml.CONTENT_TYPE)
                .end(S3Xml.error(error.error().code(), error.getMessage(), resource, requestId));
    }
}
