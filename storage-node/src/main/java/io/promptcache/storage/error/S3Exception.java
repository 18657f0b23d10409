package io.promptcache.storage.error;

/** A request the node refuses or could not serve, with the S3 error to return. */
public class S3Exception extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final S3ErrorCode error;

    public S3Exception(S3ErrorCode error) {
        this(error, error.message(), null);
    }

    public S3Exception(S3ErrorCode error, String message) {
        this(error, message, null);
    }

    public S3Exception(S3ErrorCode error, String message, Throwable cause) {
        super(message, cause);
        this.error = error;
    }

    public S3ErrorCode error() {
        return error;
    }
}
