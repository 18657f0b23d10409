package io.promptcache.storage.auth;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.promptcache.schema.secret.SigV4;

/**
 * What a SigV4 verifier adds to the signing rules it shares with the signers (event-schema's
 * {@link SigV4}): the canonical URI and query of what a client sent (each path segment
 * decoded and URI-encoded once, as S3 does) and its canonical headers.
 */
final class CanonicalForms {

    private CanonicalForms() {
    }

    /** Constant-time comparison of two hex signatures (case-insensitive). */
    static boolean sameSignature(String expected, String given) {
        return MessageDigest.isEqual(utf8(expected), utf8(given.toLowerCase(java.util.Locale.ROOT)));
    }

    /** The path, percent-decoded and re-encoded the AWS way (unreserved characters and {@code /} kept). */
    static String canonicalUri(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        return encode(percentDecode(rawPath, false), false);
    }

    /**
     * The query string, parameters decoded and re-encoded, sorted by name then value; {@code X-Amz-Signature}
     * left out (it is what presigned URLs sign).
     */
    static String canonicalQuery(Map<String, List<String>> params) {
        List<String> pairs = new ArrayList<>();
        params.forEach((name, values) -> {
            if (!name.equals("X-Amz-Signature")) {
                for (String value : values) {
                    pairs.add(encode(utf8(name), true) + "=" + encode(utf8(value), true));
                }
            }
        });
        pairs.sort(null);
        return String.join("&", pairs);
    }

    /** Query parameters in order of appearance; {@code +} decodes to a space, as form encoding does. */
    static Map<String, List<String>> parseQuery(String rawQuery) {
        Map<String, List<String>> params = new java.util.LinkedHashMap<>();
        if (rawQuery == null || rawQuery.isEmpty()) {
            return params;
        }
        for (String pair : rawQuery.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decodeText(eq < 0 ? pair : pair.substring(0, eq));
            String value = eq < 0 ? "" : decodeText(pair.substring(eq + 1));
            params.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return params;
    }

    /** {@code name:value\n} per signed header: values trimmed, inner runs of spaces collapsed. */
    static String canonicalHeaders(List<String> signedHeaders, SignedRequest request) {
        StringBuilder out = new StringBuilder();
        for (String name : signedHeaders) {
            List<String> values = request.headers().apply(name);
            List<String> cleaned = new ArrayList<>(values.size());
            for (String value : values) {
                cleaned.add(value.trim().replaceAll(" +", " "));
            }
            out.append(name).append(':').append(String.join(",", cleaned)).append('\n');
        }
        return out.toString();
    }

    private static String decodeText(String raw) {
        return new String(percentDecode(raw, true), StandardCharsets.UTF_8);
    }

    /** Bytes of {@code raw} (UTF-8) with {@code %XX} decoded; a stray {@code %} is kept as is. */
    private static byte[] percentDecode(String raw, boolean plusIsSpace) {
        byte[] in = utf8(raw);
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
        for (int i = 0; i < in.length; i++) {
            byte b = in[i];
            if (b == '%' && i + 2 < in.length && Character.digit(in[i + 1], 16) >= 0
                    && Character.digit(in[i + 2], 16) >= 0) {
                out.write(Character.digit(in[i + 1], 16) << 4 | Character.digit(in[i + 2], 16));
                i += 2;
            } else {
                out.write(plusIsSpace && b == '+' ? ' ' : b);
            }
        }
        return out.toByteArray();
    }

    private static String encode(byte[] bytes, boolean encodeSlash) {
        return SigV4.encode(bytes, encodeSlash);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
