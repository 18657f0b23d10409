package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Streaming decoder of {@code Content-Encoding: aws-chunked} bodies, as current AWS SDKs send them:
 * {@code hex-size[;chunk-signature=...] CRLF data CRLF} repeated, a zero-size chunk, optional trailer headers
 * ({@code x-amz-checksum-crc32:...}), and an empty line. Chunk signatures are not checked here (SigV4 checks them
 * when enabled). Fed in arbitrary pieces; never buffers more than one header line.
 */
final class AwsChunkedDecoder {

    /** Receives decoded body bytes. */
    @FunctionalInterface
    interface Sink {

        void accept(ByteBuffer data) throws IOException;
    }

    private static final int MAX_LINE = 4096;

    private enum State {
        SIZE_LINE,
        DATA,
        DATA_END,
        TRAILER,
        DONE
    }

    private final Sink sink;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final Map<String, String> trailers = new LinkedHashMap<>();
    private State state = State.SIZE_LINE;
    private long remaining;
    private int dataEndSeen;

    AwsChunkedDecoder(Sink sink) {
        this.sink = sink;
    }

    /** Decodes the next piece of the encoded body. */
    void feed(ByteBuffer in) throws IOException {
        while (in.hasRemaining()) {
            switch (state) {
                case SIZE_LINE -> {
                    String l = readLine(in);
                    if (l != null) {
                        startChunk(l);
                    }
                }
                case DATA -> {
                    int n = (int) Math.min(remaining, in.remaining());
                    ByteBuffer slice = in.slice();
                    slice.limit(n);
                    in.position(in.position() + n);
                    remaining -= n;
                    sink.accept(slice);
                    if (remaining == 0) {
                        state = State.DATA_END;
                        dataEndSeen = 0;
                    }
                }
                case DATA_END -> {
                    byte b = in.get();
                    if (b != (dataEndSeen == 0 ? '\r' : '\n')) {
                        throw malformed("a chunk's data must end with CRLF");
                    }
                    if (++dataEndSeen == 2) {
                        state = State.SIZE_LINE;
                    }
                }
                case TRAILER -> {
                    String l = readLine(in);
                    if (l != null) {
                        trailer(l);
                    }
                }
                case DONE -> throw malformed("bytes after the final chunk");
                default -> throw new IllegalStateException(state.toString());
            }
        }
    }

    /** Checks the body ended where the encoding says it does. */
    void finish() {
        if (state != State.DONE) {
            throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY,
                    "The aws-chunked body ended before its final chunk and trailer.");
        }
    }

    /** Trailer headers, names in lower case. */
    Map<String, String> trailers() {
        return trailers;
    }

    private void startChunk(String sizeLine) {
        int semi = sizeLine.indexOf(';');
        String hex = (semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim();
        try {
            remaining = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw malformed("bad chunk size '" + hex + "'");
        }
        if (remaining < 0) {
            throw malformed("negative chunk size");
        }
        state = remaining == 0 ? State.TRAILER : State.DATA;
    }

    private void trailer(String l) {
        if (l.isEmpty()) {
            state = State.DONE;
            return;
        }
        int colon = l.indexOf(':');
        if (colon <= 0) {
            throw malformed("bad trailer line");
        }
        trailers.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
    }

    /** Accumulates up to CRLF; returns the line without it, or null if more input is needed. */
    private String readLine(ByteBuffer in) {
        while (in.hasRemaining()) {
            byte b = in.get();
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                line.reset();
                int len = bytes.length;
                if (len == 0 || bytes[len - 1] != '\r') {
                    throw malformed("lines must end with CRLF");
                }
                return new String(bytes, 0, len - 1, StandardCharsets.US_ASCII);
            }
            if (line.size() >= MAX_LINE) {
                throw malformed("line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
        return null;
    }

    private static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Malformed aws-chunked body: " + why + ".");
    }
}
