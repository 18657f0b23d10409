package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Decodes the percent-encoding of a URI path segment as UTF-8. Unlike form decoding, {@code +} stays {@code +}:
 * S3 keys may contain it.
 */
final class PercentDecoder {

    private PercentDecoder() {
    }

    static String decode(String raw) {
        if (raw.indexOf('%') < 0) {
            return raw;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '%') {
                if (i + 2 >= raw.length()) {
                    throw invalid(raw);
                }
                int hi = Character.digit(raw.charAt(i + 1), 16);
                int lo = Character.digit(raw.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    throw invalid(raw);
                }
                out.write(hi << 4 | lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    private static S3Exception invalid(String raw) {
        return new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Malformed percent-encoding in the request path: " + raw);
    }
}
