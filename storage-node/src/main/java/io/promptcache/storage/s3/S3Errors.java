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
     * Answers {@code failure} as an S3 error document. A request whose body was not read (refused before or while it
     * arrived) is answered once its body has been drained - read and dropped, at most {@value #DRAIN_LIMIT_BYTES}
     * bytes within {@value #DRAIN_LIMIT_MILLIS} ms - so a client that sent {@code Expect: 100-continue} (answered
     * automatically) gets the error after its body, never mixed with the interim response, and is not reset before
     * it reads it; past either limit the error goes out at once and the connection is closed after it.
     */
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
        if (ctx.request().isEnded()) {
            respond(ctx, error, resource, false);
            return;
        }
        boolean[] answered = {false};
        long[] drained = {0};
        Runnable answer = () -> {
            if (!answered[0]) {
                answered[0] = true;
                respond(ctx, error, resource, !ctx.request().isEnded());
            }
        };
        try {
            ctx.request().handler(chunk -> {
                drained[0] += chunk.length();
                if (drained[0] > DRAIN_LIMIT_BYTES) {
                    answer.run();
                }
            }).endHandler(v -> answer.run()).resume();
        } catch (IllegalStateException endedMeanwhile) {
            answer.run();
            return;
        }
        ctx.vertx().setTimer(DRAIN_LIMIT_MILLIS, id -> answer.run());
    }

    /** Writes the error document; with {@code close}, closes the connection after it (its body was not read). */
    private static void respond(RoutingContext ctx, S3Exception error, String resource, boolean close) {
        HttpServerResponse response = ctx.response();
        if (response.ended()) {
            return;
        }
        if (close) {
            response.putHeader("Connection", "close");
            response.endHandler(v -> ctx.request().connection().close());
        }
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
