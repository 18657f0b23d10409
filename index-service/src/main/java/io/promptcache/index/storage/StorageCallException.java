package io.promptcache.index.storage;

import java.net.ConnectException;
import java.net.SocketTimeoutException;

import io.promptcache.schema.node.OwnNodeHttp;

import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;

/**
 * An S3 call on a storage node failed; {@link #getMessage()} says which node, what it was asked to do and how it
 * answered, in plain words (the S3 error code and status, or that it could not be reached), fit for an API answer.
 * The AWS SDK's exception is the cause, for the log.
 */
public class StorageCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** How the call failed. */
    public enum Kind {
        /** 404: no such key, bucket or upload. */
        NOT_FOUND,
        /** 416: the range is outside the object. */
        INVALID_RANGE,
        /** Any other S3 error the node answered. */
        REFUSED,
        /** No answer: connection refused or broken. */
        UNREACHABLE,
        /** No answer in time. */
        TIMED_OUT
    }

    private final Kind kind;

    public StorageCallException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * A call that got no answer ({@code failure}: refused or broken connection, none in time, a body the node stopped
     * taking), as {@code what} (who did not do what) plus why in plain words.
     */
    static StorageCallException noAnswer(String what, Exception failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof OwnNodeHttp.WriteStalled) {
                return new StorageCallException(Kind.TIMED_OUT, what + ": it did not take the body in time ("
                        + t.getMessage() + ")", failure);
            }
            if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException
                    || t instanceof SocketTimeoutException) {
                return new StorageCallException(Kind.TIMED_OUT, what + ": it did not answer in time", failure);
            }
            if (t instanceof ConnectException) {
                return new StorageCallException(Kind.UNREACHABLE, what + ": it refused the connection", failure);
            }
        }
        return new StorageCallException(Kind.UNREACHABLE, what + ": the connection to it failed ("
                + failure.getMessage() + ")", failure);
    }
}
