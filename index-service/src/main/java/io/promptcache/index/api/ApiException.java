package io.promptcache.index.api;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.streams.errors.InvalidStateStoreException;

import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * A request that cannot be served, with the HTTP status, a stable error code and a message a user can act on;
 * rendered as {@code {"error": code, "message": message}} by {@link ApiExceptionMapper} (Quarkus REST) and
 * {@link LookupRoute} (the lookup route), with {@link #headers()}.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;
    private final transient Duration retryAfter;

    public ApiException(int status, String code, String message) {
        this(status, code, message, null, null);
    }

    public ApiException(int status, String code, String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        this.status = status;
        this.code = code;
        this.retryAfter = retryAfter;
    }

    public static ApiException badRequest(String message) {
        return new ApiException(400, "BadRequest", message);
    }

    public static ApiException notFound(String code, String message) {
        return new ApiException(404, code, message);
    }

    /** 503 with Retry-After: the request may succeed later unchanged. */
    public static ApiException unavailable(String code, String message, Duration retryAfter, Throwable cause) {
        return new ApiException(503, code, message, retryAfter, cause);
    }

    /** The global stores are not queryable yet (restoring after start) or any more (shutting down). */
    public static ApiException restoring(Duration retryAfter, InvalidStateStoreException cause) {
        return unavailable("Restoring",
                "this replica is restoring its index from Kafka; retry shortly or use another replica", retryAfter,
                cause);
    }

    /** A body that is not valid JSON for the operation. */
    public static ApiException malformedJson(JsonProcessingException cause) {
        return new ApiException(400, "MalformedJson",
                "the request body is not valid JSON for this operation: " + cause.getOriginalMessage(), null, cause);
    }

    /** Response headers that go with this error: Retry-After on a 503, WWW-Authenticate on a 401. */
    public Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>(2);
        if (retryAfter != null) {
            headers.put("Retry-After", Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000)));
        }
        if (status == 401) {
            headers.put("WWW-Authenticate", "Bearer realm=\"promptcache\"");
        }
        return headers;
    }

    public ApiError body() {
        return new ApiError(code, getMessage());
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }
}
