package io.promptcache.storage.error;

/**
 * Every error the storage node returns: HTTP status, S3 error code and a default message. The one place codes
 * are defined; {@link S3Exception} carries one, and one renderer writes the XML error document.
 */
public enum S3ErrorCode {

    ACCESS_DENIED(403, "AccessDenied", "Access Denied"),
    ACCESS_CONTROL_LIST_NOT_SUPPORTED(400, "AccessControlListNotSupported", "The bucket does not allow ACLs"),
    AUTHORIZATION_HEADER_MALFORMED(400, "AuthorizationHeaderMalformed",
            "The authorization header you provided is not valid."),
    AUTHORIZATION_QUERY_PARAMETERS_ERROR(400, "AuthorizationQueryParametersError",
            "The query-string authentication parameters you provided are not valid."),
    BAD_DIGEST(400, "BadDigest", "The Content-MD5 or checksum you specified did not match what was received."),
    BUCKET_ALREADY_OWNED_BY_YOU(409, "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it."),
    BUCKET_NOT_EMPTY(409, "BucketNotEmpty", "The bucket you tried to delete is not empty."),
    CONDITIONAL_REQUEST_CONFLICT(409, "ConditionalRequestConflict",
            "A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload"
                    + " you should initiate another CreateMultipartUpload request and re-upload each part."),
    ENTITY_TOO_LARGE(400, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed object size."),
    ENTITY_TOO_SMALL(400, "EntityTooSmall",
            "Your proposed upload is smaller than the minimum allowed object size."),
    INCOMPLETE_BODY(400, "IncompleteBody",
            "You did not provide the number of bytes specified by the Content-Length HTTP header."),
    INSUFFICIENT_STORAGE(507, "InsufficientStorage",
            "The node does not have enough free capacity for this object; nothing was written."),
    INTERNAL_ERROR(500, "InternalError", "We encountered an internal error. Please try again."),
    INVALID_ACCESS_KEY_ID(403, "InvalidAccessKeyId",
            "The AWS access key ID you provided does not exist in our records."),
    INVALID_ARGUMENT(400, "InvalidArgument", "Invalid Argument"),
    INVALID_BUCKET_ACL_WITH_OBJECT_OWNERSHIP(400, "InvalidBucketAclWithObjectOwnership",
            "Bucket cannot have ACLs set with ObjectOwnership's BucketOwnerEnforced setting"),
    INVALID_BUCKET_NAME(400, "InvalidBucketName", "The specified bucket is not valid."),
    INVALID_DIGEST(400, "InvalidDigest", "The Content-MD5 you specified is not valid."),
    INVALID_PART(400, "InvalidPart",
            "One or more of the specified parts could not be found or its entity tag does not match."),
    INVALID_PART_ORDER(400, "InvalidPartOrder", "The list of parts was not in ascending order."),
    INVALID_REQUEST(400, "InvalidRequest", "The request is not valid."),
    INVALID_RANGE(416, "InvalidRange", "The requested range is not satisfiable"),
    KEY_TOO_LONG(400, "KeyTooLongError", "Your key is too long."),
    METADATA_TOO_LARGE(400, "MetadataTooLarge",
            "Your metadata headers exceed the maximum allowed metadata size (2 KB of user metadata)."),
    MALFORMED_XML(400, "MalformedXML",
            "The XML you provided was not well-formed or did not validate against our published schema."),
    NO_SUCH_BUCKET(404, "NoSuchBucket", "The specified bucket does not exist."),
    NO_SUCH_KEY(404, "NoSuchKey", "The specified key does not exist."),
    NO_SUCH_UPLOAD(404, "NoSuchUpload", "The specified multipart upload does not exist."),
    NOT_IMPLEMENTED(501, "NotImplemented",
            "A header or parameter you provided implies functionality that is not implemented."),
    PRECONDITION_FAILED(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"),
    REQUEST_TIME_TOO_SKEWED(403, "RequestTimeTooSkewed",
            "The difference between the request time and the server's time is too large."),
    SIGNATURE_DOES_NOT_MATCH(403, "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. Check your key and"
                    + " signing method."),
    CONTENT_SHA256_MISMATCH(400, "XAmzContentSHA256Mismatch",
            "The provided 'x-amz-content-sha256' header does not match what was computed.");

    private final int status;
    private final String code;
    private final String message;

    S3ErrorCode(int status, String code, String message) {
        this.status = status;
        this.code = code;
        this.message = message;
    }

    public int status() {
        return status;
    }

    public String code() {
        return code;
    }

    public String message() {
        return message;
    }
}
