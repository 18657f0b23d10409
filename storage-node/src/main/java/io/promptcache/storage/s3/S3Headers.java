package io.promptcache.storage.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/** Header names and formats used across handlers. */
final class S3Headers {

    static final String REQUEST_ID = "x-amz-request-id";
    static final String USER_META_PREFIX = "x-amz-meta-";
    static final String DECODED_LENGTH = "x-amz-decoded-content-length";
    static final String CONTENT_SHA256 = "x-amz-content-sha256";
    static final String TRAILER = "x-amz-trailer";
    static final String SDK_CHECKSUM_ALGORITHM = "x-amz-sdk-checksum-algorithm";

    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private S3Headers() {
    }

    static String newRequestId() {
        byte[] id = new byte[8];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().withUpperCase().formatHex(id);
    }

    static String httpDate(long millis) {
        return HTTP_DATE.format(Instant.ofEpochMilli(millis));
    }

    /** The decoded {@code Content-MD5} header (16 bytes), null if absent; {@code InvalidDigest} if malformed. */
    static byte[] contentMd5(String value) {
        if (value == null) {
            return null;
        }
        try {
            byte[] md5 = Base64.getDecoder().decode(value.trim());
            if (md5.length != 16) {
                throw new IllegalArgumentException();
            }
            return md5;
        } catch (IllegalArgumentException e) {
            throw new S3Exception(S3ErrorCode.INVALID_DIGEST,
                    "The Content-MD5 you specified is not valid: it must be the base64 of a 16-byte MD5.");
        }
    }

    static String quotedEtag(String etag) {
        return "\"" + etag + "\"";
    }
}
