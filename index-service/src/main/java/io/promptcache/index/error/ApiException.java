package io.promptcache.index.error;

/**
 * A request that cannot be served: an {@link ApiErrorCode} and a message a user can act on (built from the request
 * and this service's state, never from another exception's text). Rendered by {@link ApiErrors}.
 */
public class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final ApiErrorCode code;

    public ApiException(ApiErrorCode code, String message) {
        this(code, message, null);
    }

    /** With the failure that caused it, for the log (never for the body). */
    public ApiException(ApiErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public static ApiException badRequest(String message) {
        return new ApiException(ApiErrorCode.BAD_REQUEST, message);
    }

    public ApiErrorCode code() {
        return code;
    }

    public int status() {
        return code.status();
    }
}
