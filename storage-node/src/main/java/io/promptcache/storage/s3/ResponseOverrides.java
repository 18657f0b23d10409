package io.promptcache.storage.s3;

import java.util.Map;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * GetObject's {@code response-*} query parameters: the response carries the given header instead of the stored one
 * (a presigned URL that makes a browser save the object under a name, say). S3 honours them only on signed requests;
 * this node honours them whenever it serves the request (with auth off every request is served). An unknown
 * {@code response-*} parameter is refused by {@link Unimplemented}.
 */
final class ResponseOverrides {

    /** Query parameter -> the header it sets. */
    static final Map<String, String> HEADERS = Map.of("response-content-type", "Content-Type",
            "response-content-language", "Content-Language", "response-expires", "Expires",
            "response-cache-control", "Cache-Control", "response-content-disposition", "Content-Disposition",
            "response-content-encoding", "Content-Encoding");

    private ResponseOverrides() {
    }

    static void apply(HttpServerRequest request, HttpServerResponse response) {
        HEADERS.forEach((param, header) -> {
            String value = request.getParam(param);
            if (value != null) {
                response.putHeader(header, value);
            }
        });
    }
}
