package io.promptcache.storage.s3;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;
import java.util.function.Function;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.Digests;

import software.amazon.awssdk.crt.checksums.CRC64NVME;

/**
 * Verifies one {@code x-amz-checksum-*} value (from a header, or from the aws-chunked trailer) over the decoded
 * body: CRC32, CRC32C, SHA-1 and SHA-256 from the JDK, CRC64NVME (the SDK's newest default) from the AWS CRT.
 */
final class ChecksumVerifier {

    private final String algorithm;
    private final Checksum checksum;
    private final MessageDigest digest;

    private ChecksumVerifier(String algorithm, Checksum checksum, MessageDigest digest) {
        this.algorithm = algorithm;
        this.checksum = checksum;
        this.digest = digest;
    }

    /**
     * A verifier for an algorithm named like the header suffix ({@code crc32}, {@code crc32c}, {@code sha1},
     * {@code sha256}), or null if {@code algorithm} is null.
     */
    static ChecksumVerifier forAlgorithm(String algorithm) {
        if (algorithm == null) {
            return null;
        }
        String a = algorithm.toLowerCase(Locale.ROOT);
        return switch (a) {
            case "crc32" -> new ChecksumVerifier(a, new CRC32(), null);
            case "crc32c" -> new ChecksumVerifier(a, new CRC32C(), null);
            case "crc64nvme" -> new ChecksumVerifier(a, new CRC64NVME(), null);
            case "sha1" -> new ChecksumVerifier(a, null, Digests.of("SHA-1"));
            case "sha256" -> new ChecksumVerifier(a, null, Digests.sha256());
            default -> throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Checksum algorithm '" + algorithm
                    + "' is not supported by this node: use CRC32, CRC32C, CRC64NVME, SHA1 or SHA256.");
        };
    }

    String algorithm() {
        return algorithm;
    }

    void update(ByteBuffer data) {
        if (checksum != null) {
            // the CRT's CRC64NVME has no ByteBuffer update of its own: Checksum's default copies through an array
            checksum.update(data.duplicate());
        } else {
            digest.update(data.duplicate());
        }
    }

    /** Compares with the base64 value the client sent; {@code BadDigest} if they differ; the value verified. */
    String verify(String expectedBase64, Function<String, S3Exception> onMissing) {
        if (expectedBase64 == null) {
            throw onMissing.apply(ClientChecksums.PREFIX + algorithm);
        }
        String actual = Base64.getEncoder().encodeToString(value());
        if (!actual.equals(expectedBase64.trim())) {
            throw new S3Exception(S3ErrorCode.BAD_DIGEST, "The " + algorithm.toUpperCase(Locale.ROOT)
                    + " checksum you specified (" + expectedBase64 + ") did not match what was received (" + actual
                    + ").");
        }
        return actual;
    }

    private byte[] value() {
        if (digest != null) {
            return digest.digest();
        }
        long v = checksum.getValue();
        int bytes = algorithm.equals("crc64nvme") ? 8 : 4;
        byte[] value = new byte[bytes];
        for (int i = 0; i < bytes; i++) {
            value[i] = (byte) (v >>> (8 * (bytes - 1 - i)));
        }
        return value;
    }
}
