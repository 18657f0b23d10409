package io.promptcache.storage.store;

/**
 * Bytes of one body to send: {@code length} bytes from {@code offset} of a RAM view or of a file. A GET of an
 * object made of several extents sends one segment per extent it covers, in order.
 *
 * @param body the body in RAM (a retained view) or its file
 * @param offset first byte to send, within that body
 * @param length bytes to send
 */
public record BodySegment(ObjectBody body, long offset, long length) {

    /** Lets go of the RAM view, if any (a segment that will not be sent). */
    public void release() {
        if (body.ram() != null) {
            body.ram().release();
        }
    }
}
