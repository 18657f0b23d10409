package io.promptcache.storage.store;

import java.util.Map;

/**
 * What a writer says about an object besides its bytes: Content-Type, the content headers
 * ({@link ObjectMeta#CONTENT_HEADERS}) and the user metadata. A copy keeps its source's or takes new ones
 * ({@code x-amz-metadata-directive: REPLACE}).
 */
public record ObjectHeaders(String contentType, Map<String, String> headers, Map<String, String> userMetadata) {

    public ObjectHeaders {
        headers = Map.copyOf(headers);
        userMetadata = Map.copyOf(userMetadata);
    }

    /** The headers of a stored object. */
    public static ObjectHeaders of(ObjectMeta meta) {
        return new ObjectHeaders(meta.contentType(), meta.headers(), meta.userMetadata());
    }
}
