package io.promptcache.storage.auth;

import java.util.List;
import java.util.function.Function;

/**
 * What SigV4 verification needs of an HTTP request.
 *
 * @param method the HTTP method
 * @param rawPath the path as sent (percent-encoded)
 * @param rawQuery the query string as sent, without {@code ?}; null or empty if none
 * @param headers all values of a header by (case-insensitive) name; empty if absent
 */
public record SignedRequest(String method, String rawPath, String rawQuery, Function<String, List<String>> headers) {

    /** The header's values joined by commas, or null if absent. */
    String header(String name) {
        List<String> values = headers.apply(name);
        return values == null || values.isEmpty() ? null : String.join(",", values);
    }
}
