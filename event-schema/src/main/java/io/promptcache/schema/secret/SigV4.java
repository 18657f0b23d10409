package io.promptcache.schema.secret;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The pieces of AWS Signature Version 4 for S3 that a signer and a verifier share: the signing key, the string to
 * sign, the canonical request, the signature, and the AWS way of URI-encoding. index-service signs with them (the
 * presigned GET URLs lookups answer); storage-node verifies with them (its {@code auth.SigV4} adds what only a
 * verifier needs: parsing and decoding what a client sent).
 */
public final class SigV4 {

    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    public static final String SERVICE = "s3";
    public static final String TERMINATOR = "aws4_request";
    public static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    /** An {@code aws-chunked} body whose every chunk is signed, chained from the request's signature. */
    public static final String STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    /** As {@link #STREAMING_SIGNED}, with a signed trailer. */
    public static final String STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
    /** An {@code aws-chunked} body of unsigned chunks, with a trailer (a checksum). */
    public static final String STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    /** Hex SHA-256 of no bytes. */
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final HexFormat HEX = HexFormat.of();
    private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

    private SigV4() {
    }

    /** {@code HMAC(HMAC(HMAC(HMAC("AWS4" + secret, date), region), "s3"), "aws4_request")}. */
    public static byte[] signingKey(String secret, String date, String region) {
        byte[] k = hmacSha256(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), utf8(date));
        k = hmacSha256(k, utf8(region));
        k = hmacSha256(k, utf8(SERVICE));
        return hmacSha256(k, utf8(TERMINATOR));
    }

    /** {@code date/region/s3/aws4_request}. */
    public static String scope(String date, String region) {
        return date + "/" + region + "/" + SERVICE + "/" + TERMINATOR;
    }

    /** Hex HMAC-SHA256 of a string to sign. */
    public static String sign(byte[] signingKey, String stringToSign) {
        return HEX.formatHex(hmacSha256(signingKey, utf8(stringToSign)));
    }

    public static String stringToSign(String amzDate, String scope, String canonicalRequest) {
        return ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + HEX.formatHex(sha256().digest(utf8(canonicalRequest)));
    }

    /**
     * The string to sign of one chunk of a {@link #STREAMING_SIGNED} body: its signature chains from
     * {@code previousSignature} (the request's own for the first chunk) over the SHA-256 of the chunk's data.
     */
    public static String chunkStringToSign(String amzDate, String scope, String previousSignature,
            byte[] dataSha256) {
        return "AWS4-HMAC-SHA256-PAYLOAD\n" + amzDate + "\n" + scope + "\n" + previousSignature + "\n" + EMPTY_SHA256
                + "\n" + HEX.formatHex(dataSha256);
    }

    public static String canonicalRequest(String method, String canonicalUri, String canonicalQuery,
            String canonicalHeaders, String signedHeaders, String payloadHash) {
        return method + "\n" + canonicalUri + "\n" + canonicalQuery + "\n" + canonicalHeaders + "\n" + signedHeaders
                + "\n" + payloadHash;
    }

    /**
     * {@code bytes} URI-encoded the AWS way: unreserved characters ({@code A-Z a-z 0-9 - . _ ~}) kept, everything
     * else {@code %XX} in upper case; {@code /} kept unless {@code encodeSlash} (it is in a query value).
     */
    public static String encode(byte[] bytes, boolean encodeSlash) {
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                    || c == '_' || c == '~' || (c == '/' && !encodeSlash)) {
                out.append(c);
            } else {
                out.append('%').append(UPPER_HEX[(b >> 4) & 0xf]).append(UPPER_HEX[b & 0xf]);
            }
        }
        return out.toString();
    }

    /** {@link #encode(byte[], boolean)} of a string's UTF-8 bytes. */
    public static String encode(String text, boolean encodeSlash) {
        return encode(utf8(text), encodeSlash);
    }

    public static byte[] hmacSha256(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("every JDK provides HmacSHA256 with raw keys", e);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
