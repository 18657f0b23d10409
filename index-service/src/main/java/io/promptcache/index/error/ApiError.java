package io.promptcache.index.error;

/**
 * The body of every error response.
 *
 * @param error stable code ({@link ApiErrorCode#code()}, e.g. {@code UnknownNamespace}, {@code TooManyTokens})
 * @param message what went wrong and what to do
 */
public record ApiError(String error, String message) {
}
