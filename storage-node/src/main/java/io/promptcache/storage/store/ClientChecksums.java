package io.promptcache.storage.store;

import java.security.MessageDigest;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * The checksum a client sent with an object ({@code x-amz-checksum-<algorithm>}, verified as the body arrived), kept
 * with the object's headers and answered on GET and HEAD with {@code x-amz-checksum-mode: ENABLED}, as S3 does: a
 * PutObject's is {@code FULL_OBJECT}; a multipart object whose every part carried one of the same algorithm gets the
 * {@code COMPOSITE} one (the checksum of the parts' binary checksums, then {@code -<part count>}), except CRC64NVME,
 * which S3 defines as full-object only. Objects without one answer the node's own CRC32C.
 */
public final class ClientChecksums {

    public static final String PREFIX = "x-amz-checksum-";
    public static final String TYPE = PREFIX + "type";
    public static final String MODE = PREFIX + "mode";

    private ClientChecksums() {
    }

    /**
     * The algorithm a header such as {@code x-amz-checksum-crc32} names (lower case), or null if it names none (another
     * header, or {@code x-amz-checksum-type} / {@code -mode}).
     */
    public static String algorithmOf(String headerName) {
        String lower = headerName.toLowerCase(Locale.ROOT);
        return lower.startsWith(PREFIX) && !lower.equals(TYPE) && !lower.equals(MODE)
                ? lower.substring(PREFIX.length())
                : null;
    }

    /** Whether a stored header is a client checksum (kept out of answers not asking for checksums). */
    public static boolean isChecksumHeader(String name) {
        return name.startsWith(PREFIX);
    }

    /** The headers of a body whose {@code algorithm} checksum was {@code base64}, verified. */
    public static Map<String, String> fullObject(String algorithm, String base64) {
        return Map.of(PREFIX + algorithm.toLowerCase(Locale.ROOT), base64, TYPE, "FULL_OBJECT");
    }

    /** {@code headers} with {@code checksums} added. */
    static Map<String, String> with(Map<String, String> headers, Map<String, String> checksums) {
        if (checksums.isEmpty()) {
            return headers;
        }
        Map<String, String> all = new HashMap<>(headers);
        all.putAll(checksums);
        return all;
    }

    /** The composite checksum headers of a multipart object made of {@code parts}, or none (see the class doc). */
    static Map<String, String> composite(List<ObjectMeta> parts) {
        String algorithm = null;
        byte[][] values = new byte[parts.size()][];
        for (int i = 0; i < parts.size(); i++) {
            Map.Entry<String, String> own = partChecksum(parts.get(i));
            if (own == null || (algorithm != null && !algorithm.equals(own.getKey()))) {
                return Map.of();
            }
            algorithm = own.getKey();
            values[i] = Base64.getDecoder().decode(own.getValue());
        }
        if (algorithm == null) {
            return Map.of();
        }
        byte[] combined = switch (algorithm) {
            case "crc32" -> crc(new CRC32(), values);
            case "crc32c" -> crc(new CRC32C(), values);
            case "sha1" -> digest("SHA-1", values);
            case "sha256" -> digest("SHA-256", values);
            default -> null; // crc64nvme: full-object only
        };
        return combined == null
                ? Map.of()
                : Map.of(PREFIX + algorithm, Base64.getEncoder().encodeToString(combined) + "-" + parts.size(), TYPE,
                        "COMPOSITE");
    }

    private static Map.Entry<String, String> partChecksum(ObjectMeta part) {
        for (Map.Entry<String, String> header : part.headers().entrySet()) {
            String algorithm = algorithmOf(header.getKey());
            if (algorithm != null) {
                return Map.entry(algorithm, header.getValue());
            }
        }
        return null;
    }

    private static byte[] crc(Checksum crc, byte[][] values) {
        for (byte[] v : values) {
            crc.update(v, 0, v.length);
        }
        long value = crc.getValue();
        return new byte[]{(byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value};
    }

    private static byte[] digest(String algorithm, byte[][] values) {
        MessageDigest digest = Digests.of(algorithm);
        for (byte[] v : values) {
            digest.update(v);
        }
        return digest.digest();
    }
}
