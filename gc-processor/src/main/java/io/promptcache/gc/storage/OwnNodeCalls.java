package io.promptcache.gc.storage;

import java.io.IOException;
import java.util.Map;

import io.promptcache.schema.node.OwnNodeHttp;

/**
 * The GC's marks and deletes on promptcache's own nodes without the AWS SDK (event-schema's {@link OwnNodeHttp}):
 * a mark is a bodiless CopyObject of the object onto itself replacing its metadata, a delete a DeleteObject, the
 * same requests the SDK sent, signed the same way. In the issue-31 bench the candidate marks were 16 % of the GC's
 * CPU samples, almost all of it the SDK's per-call machinery (its interceptors and pipeline, endpoint rules, the
 * CopyObjectResult's XML). Listings and external S3 endpoints keep the SDK.
 */
final class OwnNodeCalls {

    private final OwnNodeHttp http;

    OwnNodeCalls(OwnNodeHttp http) {
        this.http = http;
    }

    /**
     * Replaces {@code bucket/key}'s metadata with {@code marker: value}; false if the object (or its bucket) is not
     * there.
     */
    boolean mark(String endpoint, String bucket, String key, String marker, long value) throws IOException {
        OwnNodeHttp.Answer answer = http.call("PUT", endpoint, bucket, key, Map.of(
                "x-amz-copy-source", OwnNodeHttp.objectPath(bucket, key),
                "x-amz-metadata-directive", "REPLACE",
                "content-type", "application/octet-stream",
                "x-amz-meta-" + marker, Long.toString(value)));
        if (answer.status() == 404) {
            return false; // NoSuchKey, NoSuchBucket: gone already
        }
        requireOk(answer);
        return true;
    }

    /** Deletes {@code bucket/key}; an object or a bucket that is not there is deleted already. */
    void delete(String endpoint, String bucket, String key) throws IOException {
        OwnNodeHttp.Answer answer = http.call("DELETE", endpoint, bucket, key, Map.of());
        if (answer.status() != 404) {
            requireOk(answer);
        }
    }

    private static void requireOk(OwnNodeHttp.Answer answer) throws IOException {
        if (!answer.ok()) {
            throw new IOException("the node answered " + answer.status()
                    + (answer.errorCode() == null ? "" : " " + answer.errorCode()));
        }
    }
}
