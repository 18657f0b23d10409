package io.promptcache.index.storage;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A streamed request body that counts what the HTTP client took from it: a PUT whose connection broke only after every
 * byte was taken may have been stored whole (S3Proxy answers an aws-chunked upload once it holds the declared bytes
 * and closes the connection before the client has written the final empty chunk; the client then reports a failed
 * write). {@link S3NodeStorage} then asks the server instead of failing the store.
 */
final class SentBody extends FilterInputStream {

    private final long bytes;
    private long taken;

    SentBody(InputStream in, long bytes) {
        super(in);
        this.bytes = bytes;
    }

    /** Whether the client took every byte of the body. */
    boolean allTaken() {
        return taken >= bytes;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            taken++;
        }
        return b;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
        int n = super.read(buffer, offset, length);
        if (n > 0) {
            taken += n;
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        taken += skipped;
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }
}
