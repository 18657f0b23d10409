package io.promptcache.gc.storage;

/** An S3 call on a storage node failed; the message names the node, the call and the cause. */
public class StorageCallException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public StorageCallException(String message, Throwable cause) {
        super(message, cause);
    }
}
