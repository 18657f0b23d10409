package io.promptcache.storage.s3;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectHeaders;
import io.promptcache.storage.store.ObjectMeta;
import io.vertx.core.MultiMap;

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

    /**
     * The Content-Encoding to store: the request's without {@code aws-chunked}, which describes the upload, not the
     * object (S3 drops it too); null if nothing is left.
     */
    private static String storedEncoding(String value) {
        if (value == null) {
            return null;
        }
        String stored = java.util.Arrays.stream(value.split(",")).map(String::trim)
                .filter(v -> !v.isEmpty() && !v.equalsIgnoreCase("aws-chunked"))
                .collect(java.util.stream.Collectors.joining(", "));
        return stored.isEmpty() ? null : stored;
    }

    /** A 32-bit checksum as S3 writes it in {@code x-amz-checksum-*}: base64 of its 4 big-endian bytes. */
    static String base64Crc(int crc) {
        return Base64.getEncoder().encodeToString(
                new byte[]{(byte) (crc >>> 24), (byte) (crc >>> 16), (byte) (crc >>> 8), (byte) crc});
    }

    static String quotedEtag(String etag) {
        return "\"" + etag + "\"";
    }

    /** Content-Type ({@code application/octet-stream} if absent), the content headers and the user metadata. */
    static ObjectHeaders objectHeaders(MultiMap headers) {
        Map<String, String> content = new LinkedHashMap<>();
        for (String name : ObjectMeta.CONTENT_HEADERS) {
            String value = name.equals("content-encoding") ? storedEncoding(headers.get(name)) : headers.get(name);
            if (value != null) {
                content.put(name, value);
            }
        }
        String contentType = headers.get("Content-Type");
        return new ObjectHeaders(contentType == null ? "application/octet-stream" : contentType, content,
                userMetadata(headers));
    }

    /** S3's limit on user metadata: names and values, UTF-8, at most 2 KB in all. */
    private static final int MAX_USER_METADATA_BYTES = 2048;

    /** The {@code x-amz-meta-*} headers; {@code MetadataTooLarge} beyond S3's 2 KB. */
    private static Map<String, String> userMetadata(MultiMap headers) {
        Map<String, String> meta = new LinkedHashMap<>();
        int bytes = 0;
        for (Map.Entry<String, String> h : headers) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (name.startsWith(S3Headers.USER_META_PREFIX)) {
                String key = name.substring(S3Headers.USER_META_PREFIX.length());
                meta.put(key, h.getValue());
                bytes += key.getBytes(StandardCharsets.UTF_8).length
                        + h.getValue().getBytes(StandardCharsets.UTF_8).length;
            }
        }
        if (bytes > MAX_USER_METADATA_BYTES) {
            throw new S3Exception(S3ErrorCode.METADATA_TOO_LARGE, "Your x-amz-meta-* headers hold " + bytes
                    + " bytes; S3 allows " + MAX_USER_METADATA_BYTES + " bytes of user metadata.");
        }
        return meta;
    }
}
