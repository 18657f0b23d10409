package io.promptcache.index.storage;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.zip.CRC32C;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.SigningDay;

/**
 * A PUT body in S3's {@code aws-chunked} encoding, written as it is read from the engine, in chunks of
 * {@value #CHUNK} bytes: with a key, every chunk signed (SigV4 {@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}: the
 * node checks each chunk's SHA-256 against a signature chained from the request's own, so no byte can be altered on
 * the way); without one, unsigned chunks and a CRC32C of the whole body in the trailer
 * ({@code STREAMING-UNSIGNED-PAYLOAD-TRAILER}: the node checks it before the object exists). The AWS SDK sent the
 * same protections (signed chunks, or a CRC32 trailer).
 */
final class AwsChunkedBody {

    static final int CHUNK = 64 << 10;
    static final String CHECKSUM_TRAILER = "x-amz-checksum-crc32c";

    private static final int SIGNATURE_EXTENSION = ";chunk-signature=".length() + 64;
    /** {@code x-amz-checksum-crc32c:} + 8 base64 characters + CRLF. */
    private static final int TRAILER_LINE = CHECKSUM_TRAILER.length() + 1 + 8 + 2;

    private final SigningDay.Now signing;
    private String previous;

    /**
     * @param signing the request's signing inputs, or null for unsigned chunks with a checksum trailer
     * @param seedSignature the request's own signature (the first chunk's "previous"); null when unsigned
     */
    AwsChunkedBody(SigningDay.Now signing, String seedSignature) {
        this.signing = signing;
        this.previous = seedSignature;
    }

    /** The {@code x-amz-content-sha256} of such a body. */
    static String payloadHash(boolean signed) {
        return signed ? SigV4.STREAMING_SIGNED : SigV4.STREAMING_UNSIGNED_TRAILER;
    }

    /** The encoded length of {@code bytes} decoded bytes: the request's Content-Length. */
    static long encodedLength(long bytes, boolean signed) {
        long full = bytes / CHUNK;
        int rest = (int) (bytes % CHUNK);
        long length = full * chunkLength(CHUNK, signed) + (rest > 0 ? chunkLength(rest, signed) : 0);
        // the final chunk: "0" [+ signature] CRLF, [the trailer line,] CRLF
        return length + 1 + (signed ? SIGNATURE_EXTENSION : 0) + 2 + (signed ? 0 : TRAILER_LINE) + 2;
    }

    private static long chunkLength(int size, boolean signed) {
        return Integer.toHexString(size).length() + (signed ? SIGNATURE_EXTENSION : 0) + 2 + size + 2;
    }

    /** Reads exactly {@code bytes} from {@code in} and writes them encoded to {@code out}. */
    void write(InputStream in, long bytes, OutputStream out) throws IOException {
        CRC32C crc = signing == null ? new CRC32C() : null;
        byte[] buffer = new byte[(int) Math.min(CHUNK, Math.max(bytes, 1))];
        long left = bytes;
        while (left > 0) {
            int size = (int) Math.min(buffer.length, left);
            int read = in.readNBytes(buffer, 0, size);
            if (read < size) {
                throw new EOFException("the body ended after " + (bytes - left + read) + " of " + bytes + " bytes");
            }
            if (crc != null) {
                crc.update(buffer, 0, size);
            }
            out.write(ascii(Integer.toHexString(size) + extension(buffer, size) + "\r\n"));
            out.write(buffer, 0, size);
            out.write(CRLF);
            left -= size;
        }
        out.write(ascii("0" + extension(buffer, 0) + "\r\n"));
        if (crc != null) {
            byte[] value = ByteBuffer.allocate(4).putInt((int) crc.getValue()).array();
            out.write(ascii(CHECKSUM_TRAILER + ":" + Base64.getEncoder().encodeToString(value) + "\r\n"));
        }
        out.write(CRLF);
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** The chunk's signature extension, chained from the previous signature; empty when unsigned. */
    private String extension(byte[] data, int size) {
        if (signing == null) {
            return "";
        }
        MessageDigest sha256 = sha256();
        sha256.update(data, 0, size);
        previous = SigV4.sign(signing.signingKey(), SigV4.chunkStringToSign(signing.amzDate(), signing.scope(),
                previous, sha256.digest()));
        return ";chunk-signature=" + previous;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }
}
