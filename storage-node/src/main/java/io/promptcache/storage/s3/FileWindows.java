package io.promptcache.storage.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.promptcache.storage.store.BodySegment;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.impl.BufferImpl;
import io.vertx.core.http.HttpServerResponse;

/**
 * Sends a segment of a body file as windows of {@link #WINDOW_BYTES}, each read into a pooled off-heap buffer on a
 * worker (positional reads: the file's own offsets) and written to the response, the next window read while the
 * last one is sent, and no more than that ahead of the socket (backpressure: the response's write queue). The send
 * path of file bytes where sendfile cannot be used: under TLS (Vert.x's own sendFile falls back to 8 KiB chunks
 * there, each read and encrypted on its own: a quarter of nginx's rate over TLS, docs/benchmarks/gib-reads), and
 * for the extents of an object that shares its parent's bytes. Memory per read: two windows at most.
 */
final class FileWindows {

    /** Bytes a window reads and writes at once: large enough that reads and TLS records are not the cost. */
    static final int WINDOW_BYTES = 256 << 10;

    private final Vertx vertx;
    private final HttpServerResponse response;
    private final BodySegment segment;
    private final Promise<Void> done = Promise.promise();
    private FileChannel channel;
    private boolean closed;
    private long next;
    /** The next window's read, started ahead of the socket; null when none is. */
    private Future<ByteBuf> ahead;
    /** A window's read is awaited to be sent. */
    private boolean consuming;

    private FileWindows(Vertx vertx, HttpServerResponse response, BodySegment segment) {
        this.vertx = vertx;
        this.response = response;
        this.segment = segment;
        this.next = segment.offset();
    }

    /** Sends {@code segment} (a file's) to {@code response}; completes once all of it was written, fails if cut. */
    static Future<Void> send(Vertx vertx, HttpServerResponse response, BodySegment segment) {
        FileWindows windows = new FileWindows(vertx, response, segment);
        // on the request's event loop (this may run on a worker): every step of the send runs there, one at a time
        vertx.getOrCreateContext().runOnContext(v -> {
            // a connection closed while the send waits for the socket to drain ends it (no drain comes then)
            response.exceptionHandler(windows::fail);
            windows.pump();
        });
        return windows.done.future().eventually(windows::close);
    }

    /**
     * Sends the window read ahead, if the socket takes it, and reads the next one meanwhile. Called at the start,
     * when a window's read completes and when the response drains; a call while a window's read is awaited does
     * nothing (its completion calls again), so windows go out one at a time, in order.
     */
    private void pump() {
        if (done.future().isComplete() || consuming) {
            return;
        }
        if (response.closed()) {
            fail(new IOException("The client went away"));
            return;
        }
        if (ahead == null) {
            ahead = readNext();
            if (ahead == null) {
                done.tryComplete(); // everything was written
                return;
            }
        }
        if (response.writeQueueFull()) {
            // the socket is behind: the window read ahead waits for it to drain
            response.drainHandler(v -> {
                response.drainHandler(null);
                pump();
            });
            return;
        }
        Future<ByteBuf> window = ahead;
        ahead = null;
        consuming = true;
        window.onComplete(read -> {
            consuming = false;
            if (read.failed()) {
                fail(read.cause());
                return;
            }
            ByteBuf bytes = read.result();
            if (done.future().isComplete() || response.closed()) {
                bytes.release();
                fail(new IOException("The client went away"));
                return;
            }
            response.write(BufferImpl.buffer(bytes)).onComplete(written -> bytes.release());
            ahead = readNext(); // the next window is read while this one is sent
            pump();
        });
    }

    /** The next window's read on a worker, or null past the segment's end. */
    private Future<ByteBuf> readNext() {
        long end = segment.offset() + segment.length();
        if (next >= end) {
            return null;
        }
        long position = next;
        int length = (int) Math.min(WINDOW_BYTES, end - position);
        next += length;
        return vertx.executeBlocking(() -> read(position, length), false);
    }

    /** Reads run one at a time, on workers; {@link #close} waits for the one running. */
    private synchronized ByteBuf read(long position, int length) throws IOException {
        if (closed) {
            throw new IOException("The read is over");
        }
        if (channel == null) {
            channel = FileChannel.open(segment.body().file(), StandardOpenOption.READ);
        }
        ByteBuf bytes = PooledByteBufAllocator.DEFAULT.directBuffer(length);
        try {
            ByteBuffer target = bytes.nioBuffer(0, length);
            while (target.hasRemaining()) {
                if (channel.read(target, position + target.position()) < 0) {
                    // the lease keeps the file whole while it is read: shorter means it was lost
                    throw new IOException("Body file " + segment.body().file() + " ended at "
                            + (position + target.position()) + " while it was being read");
                }
            }
            return bytes.writerIndex(length);
        } catch (IOException | RuntimeException e) {
            bytes.release();
            throw e;
        }
    }

    private void fail(Throwable cause) {
        if (done.tryFail(cause) && ahead != null) {
            ahead.onSuccess(ByteBuf::release); // a window read ahead and never sent
            ahead = null;
        }
    }

    private Future<Void> close() {
        return vertx.executeBlocking(() -> {
            synchronized (this) {
                closed = true;
                if (channel != null) {
                    channel.close();
                }
            }
            return null;
        }, false);
    }
}
