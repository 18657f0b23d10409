package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.Digests;

/**
 * Streaming decoder of {@code Content-Encoding: aws-chunked} bodies, as current AWS SDKs send them:
 * {@code hex-size[;chunk-signature=...] CRLF data CRLF} repeated, a zero-size chunk, optional trailer headers
 * ({@code x-amz-checksum-crc32:...}), and an empty line. With SigV4 signed streaming payloads, every chunk's
 * signature (and the trailer's) is verified as the chunk ends, before its bytes are passed on. Fed in arbitrary
 * pieces; never buffers more than one header line.
 */
final class AwsChunkedDecoder {

    /** Receives decoded body bytes. */
    @FunctionalInterface
    interface Sink {

        void accept(ByteBuffer data) throws IOException;
    }

    private static final int MAX_LINE = 4096;
    private static final long MAX_SIGNED_CHUNK = 16L << 20;
    private static final String TRAILER_SIGNATURE = "x-amz-trailer-signature";

    private enum State {
        SIZE_LINE,
        DATA,
        DATA_END,
        TRAILER,
        DONE
    }

    private final Sink sink;
    private final SigningContext.ChunkSignatures signatures;
    private final boolean signedTrailer;
    private final MessageDigest chunkDigest;
    private final List<ByteBuffer> chunkData = new ArrayList<>();
    private String chunkSignature;
    private String trailerSignature;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private final Map<String, String> trailers = new LinkedHashMap<>();
    private State state = State.SIZE_LINE;
    private long remaining;
    private int dataEndSeen;

    /** A decoder of unsigned chunks. */
    AwsChunkedDecoder(Sink sink) {
        this(sink, null);
    }

    /**
     * @param signing the verified request's signing context when it declares a signed streaming payload, else null
     */
    AwsChunkedDecoder(Sink sink, SigningContext signing) {
        this.sink = sink;
        boolean signed = signing != null && signing.signedChunks();
        this.signatures = signed ? signing.chunkSignatures() : null;
        this.signedTrailer = signed && signing.signedTrailer();
        this.chunkDigest = signed ? Digests.sha256() : null;
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
                    if (signatures == null) {
                        sink.accept(slice);
                    } else {
                        // held (views of the caller's buffers, valid until the chunk ends within this feed, else
                        // copied) until the chunk's signature is verified
                        chunkDigest.update(slice.duplicate());
                        chunkData.add(remaining == 0 ? slice : copy(slice));
                    }
                    if (remaining == 0) {
                        endChunkData();
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

    private void endChunkData() throws IOException {
        if (signatures == null) {
            return;
        }
        signatures.verifyChunk(chunkSignature, chunkDigest.digest());
        for (ByteBuffer data : chunkData) {
            sink.accept(data);
        }
        chunkData.clear();
    }

    private static ByteBuffer copy(ByteBuffer slice) {
        ByteBuffer copy = ByteBuffer.allocate(slice.remaining());
        copy.put(slice.duplicate()).flip();
        return copy;
    }

    private void startChunk(String sizeLine) throws IOException {
        int semi = sizeLine.indexOf(';');
        String hex = (semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim();
        chunkSignature = semi < 0 ? null : extension(sizeLine.substring(semi + 1), "chunk-signature");
        try {
            remaining = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw malformed("bad chunk size '" + hex + "'");
        }
        if (remaining < 0) {
            throw malformed("negative chunk size");
        }
        if (signatures != null && remaining > MAX_SIGNED_CHUNK) {
            // a signed chunk is held until its signature is checked
            throw malformed("a signed chunk may hold at most " + MAX_SIGNED_CHUNK + " bytes, this one " + remaining);
        }
        if (remaining == 0) {
            endChunkData();
            state = State.TRAILER;
        } else {
            state = State.DATA;
        }
    }

    private static String extension(String extensions, String name) {
        for (String ext : extensions.split(";")) {
            int eq = ext.indexOf('=');
            if (eq > 0 && ext.substring(0, eq).trim().equals(name)) {
                return ext.substring(eq + 1).trim();
            }
        }
        return null;
    }

    private void trailer(String l) {
        if (l.isEmpty()) {
            if (signedTrailer && !trailers.isEmpty()) {
                signatures.verifyTrailer(trailerSignature, canonicalTrailer());
            }
            state = State.DONE;
            return;
        }
        int colon = l.indexOf(':');
        if (colon <= 0) {
            throw malformed("bad trailer line");
        }
        String name = l.substring(0, colon).trim().toLowerCase(Locale.ROOT);
        String value = l.substring(colon + 1).trim();
        if (name.equals(TRAILER_SIGNATURE)) {
            trailerSignature = value;
        } else {
            trailers.put(name, value);
        }
    }

    /** {@code name:value\n} per trailer header, sorted by name: what the trailer signature covers. */
    private String canonicalTrailer() {
        StringBuilder canonical = new StringBuilder();
        new TreeMap<>(trailers).forEach((name, value) -> canonical.append(name).append(':').append(value)
                .append('\n'));
        return canonical.toString();
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
