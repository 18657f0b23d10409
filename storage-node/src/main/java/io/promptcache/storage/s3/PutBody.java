package io.promptcache.storage.s3;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.Map;

import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.Digests;
import io.promptcache.storage.store.ObjectMeta;
import io.promptcache.storage.store.ObjectUpload;

/**
 * The body of one PUT on its way into an {@link ObjectUpload}: decoded from aws-chunked when needed, checked
 * against Content-MD5 and any {@code x-amz-checksum-*} value (header or trailer) before the object is committed.
 */
final class PutBody {

    private final ObjectUpload upload;
    private final AwsChunkedDecoder chunked;
    private final ChecksumVerifier checksum;
    private final String headerChecksum;
    private final byte[] contentMd5;
    /** SHA-256 of the body when the signed payload hash must be checked, else null. */
    private final MessageDigest payloadSha256;
    private final byte[] expectedSha256;
    private Map<String, String> verified = Map.of();

    /**
     * @param upload the upload to write into (owned: aborted on failure)
     * @param awsChunked whether the body is aws-chunked
     * @param checksum verifier of the declared checksum algorithm, or null
     * @param headerChecksum the checksum value if sent as a header (else expected in the trailer)
     * @param contentMd5 decoded Content-MD5, or null
     * @param signing the verified SigV4 context (payload hash, chunk signatures), or null when auth is off
     */
    PutBody(ObjectUpload upload, boolean awsChunked, ChecksumVerifier checksum, String headerChecksum,
            byte[] contentMd5, SigningContext signing) {
        this.upload = upload;
        this.chunked = awsChunked ? new AwsChunkedDecoder(this::write, signing) : null;
        this.expectedSha256 = signing == null || awsChunked ? null : signing.bodySha256();
        this.payloadSha256 = expectedSha256 == null ? null : Digests.sha256();
        this.checksum = checksum;
        this.headerChecksum = headerChecksum;
        this.contentMd5 = contentMd5;
    }

    void feed(ByteBuffer bytes) throws IOException {
        if (chunked != null) {
            chunked.feed(bytes);
        } else {
            write(bytes);
        }
    }

    private void write(ByteBuffer data) throws IOException {
        if (checksum != null) {
            checksum.update(data);
        }
        if (payloadSha256 != null) {
            payloadSha256.update(data.duplicate());
        }
        upload.write(data);
    }

    /** Verifies the body and commits the object. */
    ObjectMeta commit() throws IOException {
        Map<String, String> trailers = Map.of();
        if (chunked != null) {
            chunked.finish();
            trailers = chunked.trailers();
        }
        if (checksum != null) {
            String expected = headerChecksum != null
                    ? headerChecksum
                    : trailers.get(ClientChecksums.PREFIX + checksum.algorithm());
            verified = ClientChecksums.fullObject(checksum.algorithm(), checksum.verify(expected,
                    name -> new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The request declared a " + name
                            + " checksum but did not send its value.")));
        }
        if (payloadSha256 != null && !MessageDigest.isEqual(expectedSha256, payloadSha256.digest())) {
            throw new S3Exception(S3ErrorCode.CONTENT_SHA256_MISMATCH);
        }
        return upload.commit(contentMd5, verified);
    }

    /** The client's checksum headers once verified by {@link #commit} (kept with the object, and answered). */
    Map<String, String> verifiedChecksum() {
        return verified;
    }

    void abort() {
        try {
            upload.close();
        } catch (IOException e) {
            // the startup validation removes the temporary file
        }
    }
}
