package io.promptcache.storage.s3;

import java.util.List;

import io.netty.buffer.ByteBuf;
import io.promptcache.storage.store.BodySegment;
import io.vertx.core.Future;
import io.vertx.core.buffer.impl.BufferImpl;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * Writes a response body made of segments, in order, as one response: RAM segments as off-heap slices (no copy),
 * file segments in windows with backpressure ({@link FileWindows}). A single file segment on a plain connection is
 * sent with sendfile instead (see {@link ReadHandlers}). The status and headers are written before the first byte, so a failure midway can only cut
 * the connection: the client sees fewer bytes than Content-Length, never wrong ones.
 */
final class SegmentWriter {

    private SegmentWriter() {
    }

    static void write(RoutingContext ctx, List<BodySegment> segments) {
        next(ctx, segments, 0).onComplete(done -> {
            segments.forEach(BodySegment::finished); // the response is over: the leases on their files go
            if (done.succeeded()) {
                ctx.response().end();
            } else {
                for (int i = done.cause() instanceof Abandoned a ? a.from : segments.size(); i < segments.size(); i++) {
                    segments.get(i).release();
                }
                ctx.request().connection().close();
            }
        });
    }

    private static Future<Void> next(RoutingContext ctx, List<BodySegment> segments, int index) {
        if (index == segments.size()) {
            return Future.succeededFuture();
        }
        if (ctx.response().closed()) {
            return Future.failedFuture(new Abandoned(index));
        }
        BodySegment segment = segments.get(index);
        return send(ctx, segment).recover(e -> Future.failedFuture(new Abandoned(index + 1)))
                .compose(v -> next(ctx, segments, index + 1));
    }

    private static Future<Void> send(RoutingContext ctx, BodySegment segment) {
        HttpServerResponse response = ctx.response();
        if (segment.body().ram() != null) {
            ByteBuf ram = segment.body().ram();
            return response.write(BufferImpl.buffer(ram.slice(ram.readerIndex() + (int) segment.offset(),
                    (int) segment.length()))).eventually(() -> {
                        ram.release();
                        return Future.succeededFuture();
                    });
        }
        return FileWindows.send(ctx.vertx(), response, segment);
    }

    /** Segments from {@code from} on were not sent and still hold their RAM views. */
    private static final class Abandoned extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final int from;

        Abandoned(int from) {
            super(null, null, false, false);
            this.from = from;
        }
    }
}
