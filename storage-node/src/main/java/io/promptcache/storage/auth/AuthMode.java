package io.promptcache.storage.auth;

/** How the S3 API authenticates requests. */
public enum AuthMode {
    /** Every request is accepted (local use, trusted networks). Signatures, if sent, are ignored. */
    NONE,
    /** AWS Signature Version 4: header auth, presigned URLs, signed streaming payloads; keys from configuration. */
    SIGV4
}
