package io.promptcache.index.api;

import io.vertx.core.buffer.Buffer;

/**
 * A request body gathered chunk by chunk into one array, up to a limit: sized once from {@code Content-Length}
 * when the client sends it, so a body arriving in one chunk is copied once. Not thread-safe (one event loop).
 */
final class RequestBody {

    private static final int UNKNOWN_LENGTH_START = 16 << 10;

    private final long limit;
    private byte[] bytes;
    private int length;

    /**
     * @param limit the most bytes accepted
     * @param declared the {@code Content-Length}, or -1 if not sent (already checked against {@code limit})
     */
    RequestBody(long limit, long declared) {
        this.limit = limit;
        this.bytes = new byte[(int) (declared >= 0 ? declared : Math.min(limit, UNKNOWN_LENGTH_START))];
    }

    /** Appends a chunk; false (and nothing appended) if the body would go over the limit. */
    boolean append(Buffer chunk) {
        int n = chunk.length();
        if (length + (long) n > limit) {
            return false;
        }
        if (length + n > bytes.length) {
            byte[] grown = new byte[(int) Math.min(limit, Math.max(2L * bytes.length, length + (long) n))];
            System.arraycopy(bytes, 0, grown, 0, length);
            bytes = grown;
        }
        chunk.getBytes(0, n, bytes, length);
        length += n;
        return true;
    }

    /** The array holding the body in {@code [0, length())}; it may be longer. */
    byte[] array() {
        return bytes;
    }

    int length() {
        return length;
    }
}
