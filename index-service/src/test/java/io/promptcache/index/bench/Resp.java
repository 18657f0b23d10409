package io.promptcache.index.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;

/**
 * A minimal blocking Redis (RESP2) connection: enough for pipelined SET and MGET, nothing else. Its own
 * unsynchronized buffers (no per-byte stream calls), so the baseline's client costs as little as a good client.
 */
final class Resp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;
    private byte[] write = new byte[1 << 16];
    private int written;
    private final byte[] read = new byte[1 << 16];
    private int readPos;
    private int readLimit;

    Resp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        out = socket.getOutputStream();
        in = socket.getInputStream();
    }

    /** Writes one command (not flushed). */
    void command(byte[]... args) throws IOException {
        put((byte) '*');
        putNumber(args.length);
        for (byte[] arg : args) {
            put((byte) '$');
            putNumber(arg.length);
            ensure(arg.length + 2);
            System.arraycopy(arg, 0, write, written, arg.length);
            written += arg.length;
            write[written++] = '\r';
            write[written++] = '\n';
        }
    }

    void flush() throws IOException {
        out.write(write, 0, written);
        out.flush();
        written = 0;
    }

    /** Reads one reply; for an array, returns the number of leading non-null elements (the rest is read and dropped). */
    int readLeadingNonNull() throws IOException {
        int type = next();
        long n = readNumber();
        switch (type) {
            case '+', ':' -> {
                return 1;
            }
            case '-' -> throw new IOException("redis error");
            case '$' -> {
                skipBulk(n);
                return n < 0 ? 0 : 1;
            }
            case '*' -> {
                int leading = 0;
                boolean gap = false;
                for (long i = 0; i < n; i++) {
                    if (next() != '$') {
                        throw new IOException("unexpected MGET element");
                    }
                    long len = readNumber();
                    skipBulk(len);
                    if (len < 0) {
                        gap = true;
                    } else if (!gap) {
                        leading++;
                    }
                }
                return leading;
            }
            default -> throw new IOException("unexpected RESP type " + type);
        }
    }

    private void skipBulk(long len) throws IOException {
        if (len < 0) {
            return;
        }
        long remaining = len + 2;
        while (remaining > 0) {
            if (readPos == readLimit) {
                fill();
            }
            int step = (int) Math.min(remaining, readLimit - readPos);
            readPos += step;
            remaining -= step;
        }
    }

    private int next() throws IOException {
        if (readPos == readLimit) {
            fill();
        }
        return read[readPos++];
    }

    private void fill() throws IOException {
        readLimit = in.read(read, 0, read.length);
        readPos = 0;
        if (readLimit <= 0) {
            throw new IOException("connection closed");
        }
    }

    private long readNumber() throws IOException {
        long n = 0;
        boolean negative = false;
        int c;
        while ((c = next()) != '\r') {
            if (c == '-') {
                negative = true;
            } else {
                n = n * 10 + (c - '0');
            }
        }
        next();
        return negative ? -n : n;
    }

    private void put(byte b) {
        ensure(1);
        write[written++] = b;
    }

    private void putNumber(int n) {
        ensure(12);
        if (n == 0) {
            write[written++] = '0';
        } else {
            int start = written;
            while (n > 0) {
                write[written++] = (byte) ('0' + n % 10);
                n /= 10;
            }
            for (int i = start, j = written - 1; i < j; i++, j--) {
                byte t = write[i];
                write[i] = write[j];
                write[j] = t;
            }
        }
        write[written++] = '\r';
        write[written++] = '\n';
    }

    private void ensure(int more) {
        if (written + more > write.length) {
            write = Arrays.copyOf(write, Math.max(write.length * 2, written + more));
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
