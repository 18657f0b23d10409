package io.promptcache.index.api;

import java.time.Duration;

/**
 * A request that cannot be served, with the HTTP status, a stable error code and a message a user can act on;
 * rendered as {@code {"error": code, "message": message}} by {@link ApiExceptionMapper}.
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

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    /** Seconds for the Retry-After header, or null. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
