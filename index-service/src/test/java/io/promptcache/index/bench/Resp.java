package io.promptcache.index.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** A minimal blocking Redis (RESP2) connection: enough for pipelined SET and MGET, nothing else. */
final class Resp implements AutoCloseable {

    private final Socket socket;
    private final OutputStream out;
    private final InputStream in;

    Resp(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
        in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
    }

    /** Writes one command (not flushed). */
    void command(byte[]... args) throws IOException {
        out.write('*');
        writeNumber(args.length);
        for (byte[] arg : args) {
            out.write('$');
            writeNumber(arg.length);
            out.write(arg);
            out.write('\r');
            out.write('\n');
        }
    }

    void flush() throws IOException {
        out.flush();
    }

    /** Reads one reply; for an array, returns the number of leading non-null elements (the rest is read and dropped). */
    int readLeadingNonNull() throws IOException {
        int type = in.read();
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
                    if (in.read() != '$') {
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
        if (len >= 0) {
            in.skipNBytes(len + 2);
        }
    }

    private void writeNumber(int n) throws IOException {
        out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }

    private long readNumber() throws IOException {
        long n = 0;
        boolean negative = false;
        int c;
        while ((c = in.read()) != '\r') {
            if (c == '-') {
                negative = true;
            } else if (c < 0) {
                throw new IOException("connection closed");
            } else {
                n = n * 10 + (c - '0');
            }
        }
        in.read();
        return negative ? -n : n;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
