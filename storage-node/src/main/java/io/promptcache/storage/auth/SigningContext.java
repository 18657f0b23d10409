package io.promptcache.storage.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.Digests;

/**
 * A request whose SigV4 signature checked out, with what the body still has to be checked against: the declared
 * payload hash, and for signed streaming payloads the key and seed signature that chain the chunk signatures.
 *
 * @param accessKeyId who signed
 * @param signingKey the derived key {@code HMAC(..."aws4_request")}
 * @param amzDate the request time as signed ({@code yyyyMMdd'T'HHmmss'Z'})
 * @param scope the credential scope ({@code date/region/s3/aws4_request})
 * @param seedSignature the request's own signature (the first chunk signature's "previous")
 * @param payloadHash the x-amz-content-sha256 value signed (hex SHA-256, or one of the UNSIGNED/STREAMING tokens)
 */
public record SigningContext(String accessKeyId, byte[] signingKey, String amzDate, String scope,
        String seedSignature, String payloadHash) {

    public static final String UNSIGNED_PAYLOAD = SigV4.UNSIGNED_PAYLOAD;
    public static final String STREAMING_SIGNED = SigV4.STREAMING_SIGNED;
    public static final String STREAMING_SIGNED_TRAILER = SigV4.STREAMING_SIGNED_TRAILER;
    public static final String STREAMING_UNSIGNED_TRAILER = SigV4.STREAMING_UNSIGNED_TRAILER;

    /** Whether every aws-chunked chunk carries a signature to verify. */
    public boolean signedChunks() {
        return payloadHash.equals(STREAMING_SIGNED) || payloadHash.equals(STREAMING_SIGNED_TRAILER);
    }

    /** Whether the trailer carries an {@code x-amz-trailer-signature}. */
    public boolean signedTrailer() {
        return payloadHash.equals(STREAMING_SIGNED_TRAILER);
    }

    /** The SHA-256 the whole (not chunk-encoded) body must have, or null when the payload is not hashed. */
    public byte[] bodySha256() {
        if (payloadHash.length() != 64) {
            return null;
        }
        try {
            return HexFormat.of().parseHex(payloadHash);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** Checks a buffered body against the signed payload hash (nothing to check for unsigned payloads). */
    public void verifyBody(byte[] body) {
        byte[] expected = bodySha256();
        if (expected != null && !MessageDigest.isEqual(expected, Digests.sha256().digest(body))) {
            throw new S3Exception(S3ErrorCode.CONTENT_SHA256_MISMATCH);
        }
    }

    /** The chain of chunk signatures of a signed streaming payload, starting from the seed signature. */
    public ChunkSignatures chunkSignatures() {
        return new ChunkSignatures();
    }

    /** Verifies chunk signatures in order; each one chains from the previous. Not thread-safe. */
    public final class ChunkSignatures {

        private String previous = seedSignature;

        private ChunkSignatures() {
        }

        /** Verifies the signature of one chunk, given the SHA-256 of its data. */
        public void verifyChunk(String signature, byte[] dataSha256) {
            verify(signature, SigV4.chunkStringToSign(amzDate, scope, previous, dataSha256), "chunk");
            previous = signature;
        }

        /** Verifies the trailer signature over the canonical trailer ({@code name:value\n} per header, sorted). */
        public void verifyTrailer(String signature, String canonicalTrailer) {
            byte[] hash = Digests.sha256().digest(canonicalTrailer.getBytes(StandardCharsets.UTF_8));
            verify(signature, String.join("\n", "AWS4-HMAC-SHA256-TRAILER", amzDate, scope, previous,
                    HexFormat.of().formatHex(hash)), "trailer");
        }

        private void verify(String signature, String stringToSign, String what) {
            if (signature == null) {
                throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH,
                        "The request declares a signed streaming payload but a " + what + " carries no signature.");
            }
            String expected = SigV4.sign(signingKey, stringToSign);
            if (!CanonicalForms.sameSignature(expected, signature)) {
                throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH, "The signature of a " + what
                        + " of the streaming payload does not match: the body was altered or signed with another key.");
            }
        }
    }
}
