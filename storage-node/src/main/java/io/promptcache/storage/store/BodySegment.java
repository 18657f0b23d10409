package io.promptcache.storage.store;

/**
 * Bytes of one body to send: {@code length} bytes from {@code offset} of a RAM view or of a file. A GET of an
 * object made of several extents sends one segment per extent it covers, in order.
 *
 * @param body the body in RAM (a retained view) or its file
 * @param offset first byte to send, within that body
 * @param length bytes to send
 * @param lease the read's lease on the body's file (null for RAM): run once the segment is sent or abandoned, so that
 *        the file's delete or trim, deferred while it is read, can run ({@code BodyReaders})
 */
public record BodySegment(ObjectBody body, long offset, long length, Runnable lease) {

    public BodySegment(ObjectBody body, long offset, long length) {
        this(body, offset, length, null);
    }

    /** Lets go of the RAM view, if any, and of the lease (a segment that will not be sent). */
    public void release() {
        if (body.ram() != null) {
            body.ram().release();
        }
        finished();
    }

    /** The segment was sent (or its response is over): lets go of the lease on its file. Idempotent. */
    public void finished() {
        if (lease != null) {
            lease.run();
        }
    }
}
