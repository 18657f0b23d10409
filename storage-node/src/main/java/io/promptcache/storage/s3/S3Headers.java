package io.promptcache.storage.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

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

    static String quotedEtag(String etag) {
        return "\"" + etag + "\"";
    }
}
