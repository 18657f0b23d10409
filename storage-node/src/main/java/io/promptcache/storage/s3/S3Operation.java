package io.promptcache.storage.s3;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;

/** The S3 operations the node serves: the label of its metrics (never keys or paths) and the dispatch switch. */
public enum S3Operation {

    LIST_BUCKETS,
    CREATE_BUCKET,
    HEAD_BUCKET,
    DELETE_BUCKET,
    LIST_OBJECTS,
    LIST_OBJECT_VERSIONS,
    GET_BUCKET_VERSIONING,
    GET_BUCKET_LOCATION,
    LIST_MULTIPART_UPLOADS,
    DELETE_OBJECTS,
    PUT_OBJECT,
    COPY_OBJECT,
    GET_OBJECT,
    HEAD_OBJECT,
    DELETE_OBJECT,
    CREATE_MULTIPART_UPLOAD,
    UPLOAD_PART,
    UPLOAD_PART_COPY,
    COMPLETE_MULTIPART_UPLOAD,
    ABORT_MULTIPART_UPLOAD,
    LIST_PARTS,
    /** GetBucketAcl or GetObjectAcl ({@code GET ?acl}). */
    GET_ACL,
    /** PutBucketAcl or PutObjectAcl ({@code PUT ?acl}). */
    PUT_ACL,
    /** A method the path does not support. */
    UNSUPPORTED;

    static S3Operation of(HttpMethod method, S3Path path, MultiMap params, MultiMap headers) {
        S3Operation op = of(method, path, params);
        if (headers.contains(CopyHandlers.COPY_SOURCE)) {
            return op == PUT_OBJECT ? COPY_OBJECT : op == UPLOAD_PART ? UPLOAD_PART_COPY : op;
        }
        return op;
    }

    private static S3Operation of(HttpMethod method, S3Path path, MultiMap params) {
        if (path.bucket() == null) {
            return method == HttpMethod.GET ? LIST_BUCKETS : UNSUPPORTED;
        }
        if (params.contains("acl")) {
            return method == HttpMethod.GET ? GET_ACL : method == HttpMethod.PUT ? PUT_ACL : UNSUPPORTED;
        }
        if (path.key() == null) {
            if (method == HttpMethod.GET) {
                return bucketQuery(params);
            }
            if (method == HttpMethod.HEAD) {
                return HEAD_BUCKET;
            }
            if (method == HttpMethod.PUT) {
                return CREATE_BUCKET;
            }
            if (method == HttpMethod.DELETE) {
                return DELETE_BUCKET;
            }
            return method == HttpMethod.POST && params.contains("delete") ? DELETE_OBJECTS : UNSUPPORTED;
        }
        return params.contains("uploadId") || params.contains("uploads")
                ? multipart(method, params)
                : object(method);
    }

    private static S3Operation bucketQuery(MultiMap params) {
        if (params.contains("versions")) {
            return LIST_OBJECT_VERSIONS;
        }
        if (params.contains("uploads")) {
            return LIST_MULTIPART_UPLOADS;
        }
        if (params.contains("versioning")) {
            return GET_BUCKET_VERSIONING;
        }
        return params.contains("location") ? GET_BUCKET_LOCATION : LIST_OBJECTS;
    }

    private static S3Operation object(HttpMethod method) {
        if (method == HttpMethod.GET) {
            return GET_OBJECT;
        }
        if (method == HttpMethod.HEAD) {
            return HEAD_OBJECT;
        }
        if (method == HttpMethod.PUT) {
            return PUT_OBJECT;
        }
        return method == HttpMethod.DELETE ? DELETE_OBJECT : UNSUPPORTED;
    }

    private static S3Operation multipart(HttpMethod method, MultiMap params) {
        if (method == HttpMethod.POST) {
            return params.contains("uploads") ? CREATE_MULTIPART_UPLOAD : COMPLETE_MULTIPART_UPLOAD;
        }
        if (method == HttpMethod.PUT) {
            return UPLOAD_PART;
        }
        if (method == HttpMethod.GET) {
            return LIST_PARTS;
        }
        return method == HttpMethod.DELETE ? ABORT_MULTIPART_UPLOAD : UNSUPPORTED;
    }

    /** Metric label value, e.g. {@code get_object}. */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
