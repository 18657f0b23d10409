package io.promptcache.index.error;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;

/**
 * The one error renderer: any failure of a request becomes a status, headers and an {@link ApiError} body. Used by
 * the REST resources' exception mapper and by the lookup route. A body never quotes an exception: an
 * {@link ApiException} carries its own message, a JSON error is described by where it is and what was expected, and
 * anything else is a 500 whose details go to the log only.
 */
public final class ApiErrors {

    private static final Logger LOG = LoggerFactory.getLogger(ApiErrors.class);

    private ApiErrors() {
    }

    /**
     * A rendered error.
     *
     * @param status HTTP status
     * @param headers Retry-After on a retryable 503, WWW-Authenticate on a 401
     * @param body the JSON body
     */
    public record Rendered(int status, Map<String, String> headers, ApiError body) {
    }

    /** Renders {@code failure}; {@code retryAfter} is what a retryable 503 tells the client to wait. */
    public static Rendered render(Throwable failure, Duration retryAfter) {
        ApiException error = classify(failure);
        if (error.status() >= 500) {
            if (error.code() == ApiErrorCode.INTERNAL_ERROR) {
                LOG.error("request failed", failure);
            } else {
                LOG.warn("{} {}: {}{}", error.status(), error.code().code(), error.getMessage(),
                        error.getCause() == null ? "" : " (" + error.getCause() + ")");
            }
        }
        Map<String, String> headers = new LinkedHashMap<>(2);
        if (error.code().retryable()) {
            headers.put("Retry-After", Long.toString(Math.max(1, (retryAfter.toMillis() + 999) / 1000)));
        }
        if (error.status() == 401) {
            headers.put("WWW-Authenticate", "Bearer realm=\"promptcache\"");
        }
        return new Rendered(error.status(), headers, new ApiError(error.code().code(), error.getMessage()));
    }

    private static ApiException classify(Throwable failure) {
        if (failure instanceof ApiException api) {
            return api;
        }
        if (failure instanceof InvalidStateStoreException) {
            return new ApiException(ApiErrorCode.RESTORING, "this replica is restoring its index from Kafka; "
                    + "retry shortly or use another replica", failure);
        }
        if (failure instanceof JsonProcessingException json) {
            return malformedJson(json);
        }
        if (failure instanceof IOException) {
            // reading the request body failed: the client closed the connection, or it was cut off as stalled
            return new ApiException(ApiErrorCode.BAD_REQUEST, "the request body could not be read to its end (the "
                    + "connection closed, or the body stalled); send it again", failure);
        }
        return new ApiException(ApiErrorCode.INTERNAL_ERROR, "the request failed on this replica; its log has "
                + "the details", failure);
    }

    /** A body that is not JSON of the operation's shape, described by where and what was expected. */
    public static ApiException malformedJson(JsonProcessingException e) {
        StringBuilder message = new StringBuilder("the request body is not ");
        if (e instanceof JsonMappingException mapping) {
            message.append("of the expected shape");
            String path = mapping.getPath().stream()
                    .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(Collectors.joining(".")).replace(".[", "[");
            if (!path.isEmpty()) {
                message.append(" at ").append(path);
            }
            if (e instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
                message.append(": expected ").append(describe(mismatch.getTargetType()));
            }
        } else {
            message.append("valid JSON");
        }
        JsonLocation where = e.getLocation();
        if (where != null && where.getLineNr() > 0) {
            message.append(" (line ").append(where.getLineNr()).append(", column ").append(where.getColumnNr())
                    .append(')');
        }
        return new ApiException(ApiErrorCode.MALFORMED_JSON, message.append("; see /q/openapi").toString(), e);
    }

    private static String describe(Class<?> type) {
        if (type == int[].class || type == long[].class) {
            return "an array of integers";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "an integer";
        }
        if (type == double.class || type == Double.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type == String.class) {
            return "a string";
        }
        if (type.isArray() || Iterable.class.isAssignableFrom(type)) {
            return "an array";
        }
        return "an object";
    }
}
