package io.promptcache.index.error;

/**
 * Every error index-service answers: HTTP status, the stable code of the body's {@code error} field, and what the
 * caller should do about it. The one place codes are defined; {@link ApiException} carries one and
 * {@link ApiErrors} renders it, on the REST resources and on the lookup route alike.
 */
public enum ApiErrorCode {

    BAD_REQUEST(400, "BadRequest", "fix the request as the message says; sending it again unchanged fails again"),
    MALFORMED_JSON(400, "MalformedJson", "send JSON of the documented shape (see /q/openapi)"),
    MISSING_API_KEY(401, "MissingApiKey", "send an API key: Authorization: Bearer <key> or X-Api-Key: <key>"),
    INVALID_API_KEY(401, "InvalidApiKey", "use a key configured in promptcache.index.tenants"),
    FORBIDDEN(403, "Forbidden", "use an API key of the tenant that owns the resource"),
    NOT_OWNER(403, "NotOwner", "only the identity that stored an object deletes it; invalidate it instead"),
    NOT_FOUND(404, "NotFound", "check the path against /q/openapi"),
    UNKNOWN_NAMESPACE(404, "UnknownNamespace", "register the namespace first: POST /v1/namespaces"),
    UNKNOWN_OBJECT(404, "UnknownObject", "treat it as a miss: the object was never stored or is deleted"),
    OBJECT_MISSING(404, "ObjectMissing", "treat it as a miss: the node lost the object and it is invalidated"),
    NO_SUCH_BACKEND(404, "NoSuchBackend", "nothing to do: the backend is not tracked"),
    METHOD_NOT_ALLOWED(405, "MethodNotAllowed", "use a method the Allow header lists"),
    NOT_ACCEPTABLE(406, "NotAcceptable", "accept application/json (or application/octet-stream for a load)"),
    REQUEST_TIMEOUT(408, "RequestTimeout", "send the whole body without pausing; the connection is closed"),
    OBJECT_ID_IN_USE(409, "ObjectIdInUse", "reserve again: the id belongs to another namespace"),
    UNKNOWN_NODE(409, "UnknownNode", "send back the node the reservation named"),
    SIZE_MISMATCH(409, "SizeMismatch", "PUT exactly the reserved number of bytes, then commit again"),
    NOT_UPLOADED(409, "NotUploaded", "PUT the bytes to the reservation's URL, then commit again"),
    CONTINUATION_EXPIRED(409, "ContinuationExpired", "reserve again: the object this one continued is gone"),
    RESERVATION_EXPIRED(409, "ReservationExpired", "store again: a reservation is committed within twice "
            + "store.reservation-expiry, after which the GC may delete its bytes as an orphan"),
    CONTINUATION_UNAVAILABLE(409, "ContinuationUnavailable", "store the whole prompt (fromBlock 0)"),
    OBJECT_PRESENT(409, "ObjectPresent", "retry the GET: the object is on its node, so it was not invalidated"),
    NO_BACKEND(409, "NoBackend", "name candidates in the request, or let engines publish KV events"),
    LENGTH_REQUIRED(411, "LengthRequired", "send Content-Length, or use the two-step store"),
    TOO_LARGE(413, "TooLarge", "send a smaller body; the limits are in the message"),
    TOO_MANY_TOKENS(413, "TooManyTokens", "send at most promptcache.index.max-tokens tokens"),
    TOO_MANY_BLOCKS(413, "TooManyBlocks", "send at most promptcache.index.max-block-hashes block hashes"),
    OBJECT_TOO_LARGE(413, "ObjectTooLarge", "store at most promptcache.index.store.max-object-bytes bytes"),
    RECORD_TOO_LARGE(413, "RecordTooLarge", "store the object whole, with layout.bytesPerBlock"),
    UNSUPPORTED_MEDIA_TYPE(415, "UnsupportedMediaType", "send the Content-Type the operation documents"),
    INVALID_RANGE(416, "InvalidRange", "ask for a range inside the object"),
    INTERNAL_ERROR(500, "InternalError", "report it: this is a defect of index-service, not of the request"),
    RESTORING(503, "Restoring", "retry after Retry-After, or use another replica"),
    ROUTING_NOT_READY(503, "RoutingNotReady", "retry after Retry-After, or use another replica"),
    ROUTING_DISABLED(503, "RoutingDisabled", "turn routing on (promptcache.index.routing.enabled) or use a replica"
            + " that routes"),
    KAFKA_UNAVAILABLE(503, "KafkaUnavailable", "retry after Retry-After: nothing was published"),
    NO_STORAGE_NODE(503, "NoStorageNode", "retry after Retry-After, or add storage capacity"),
    STORAGE_NODE_FAILED(503, "StorageNodeFailed", "retry after Retry-After: nothing was advertised"),
    STORAGE_NODE_GONE(503, "StorageNodeGone", "treat it as a miss, or retry after Retry-After");

    private final int status;
    private final String code;
    private final String remedy;

    ApiErrorCode(int status, String code, String remedy) {
        this.status = status;
        this.code = code;
        this.remedy = remedy;
    }

    public int status() {
        return status;
    }

    /** The body's {@code error} field: stable across releases. */
    public String code() {
        return code;
    }

    /** What the caller should do. */
    public String remedy() {
        return remedy;
    }

    /** Whether the same request may succeed later (a 503): answered with Retry-After. */
    public boolean retryable() {
        return status == 503 && this != ROUTING_DISABLED;
    }
}
