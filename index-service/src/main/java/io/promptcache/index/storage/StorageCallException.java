package io.promptcache.index.storage;

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
}
