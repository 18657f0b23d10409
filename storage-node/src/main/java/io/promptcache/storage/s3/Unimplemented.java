package io.promptcache.storage.s3;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.promptcache.schema.node.PrefixedPut;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;

/**
 * What the node does not implement is refused before any handler runs, with S3's {@code 501 NotImplemented}: a
 * request naming an S3 subresource ({@code ?acl}, {@code ?tagging}, {@code ?versions}, ...) or carrying a header that
 * asks for a behaviour the node lacks (tags, object lock, server-side encryption, a condition on an operation that
 * takes none) is
 * never served as the plain operation of its method and path (a {@code PUT ?acl} must not replace the object's bytes
 * with the ACL document, a {@code DELETE ?tagging} must not delete the object). The implemented subresources are
 * accepted only where they belong: {@code uploads}, {@code uploadId} and {@code partNumber} on objects for the
 * multipart calls, {@code delete} on a bucket for DeleteObjects. {@code versionId} is accepted as {@code null} (the
 * node keeps no versions: every object's version id is {@code null}); any other version id is S3's
 * {@code 400 InvalidArgument}. ACLs are S3's own refusals of a bucket whose ACLs are disabled ({@link Acls}).
 */
final class Unimplemented {

    /** Subresources and operation variants of the S3 API the node has no handler for. */
    static final Set<String> SUBRESOURCES = Set.of("accelerate", "acl", "analytics", "attributes", "cors",
            "encryption", "intelligent-tiering", "inventory", "legal-hold", "lifecycle", "location", "logging",
            "metadataTable", "metrics", "notification", "object-lock", "ownershipControls", "policy", "policyStatus",
            "publicAccessBlock", "replication", "requestPayment", "restore", "retention", "select", "select-type",
            "session", "tagging", "torrent", "versioning", "versions", "website");

    /** The subresources the node serves, each for its operations only ({@code GET ?versions}, not PUT). */
    private static final Map<String, Set<S3Operation>> SERVED = Map.of(
            "versions", Set.of(S3Operation.LIST_OBJECT_VERSIONS),
            "versioning", Set.of(S3Operation.GET_BUCKET_VERSIONING),
            "location", Set.of(S3Operation.GET_BUCKET_LOCATION),
            "acl", Set.of(S3Operation.GET_ACL, S3Operation.PUT_ACL));

    /** Request headers asking for a behaviour the node lacks, by lower-case name or prefix (ending in '-'). */
    static final Set<String> HEADERS = Set.of("x-amz-tagging", "x-amz-object-lock-", "x-amz-website-redirect-location",
            "x-amz-server-side-encryption", "x-amz-server-side-encryption-", "x-amz-bucket-object-lock-enabled",
            "x-amz-if-match-");

    /** Operations that take If-Match / If-None-Match: the reads, and the conditional writes. */
    private static final Set<S3Operation> CONDITIONAL = Set.of(S3Operation.GET_OBJECT, S3Operation.HEAD_OBJECT,
            S3Operation.PUT_OBJECT, S3Operation.COPY_OBJECT, S3Operation.COMPLETE_MULTIPART_UPLOAD,
            S3Operation.DELETE_OBJECT);

    /** Headers accepted only with the value that asks for what the node does anyway. */
    private static final Map<String, Set<String>> ONLY_DEFAULT = Map.of("x-amz-storage-class", Set.of("STANDARD"));

    private Unimplemented() {
    }

    /** Throws {@code NotImplemented} (or {@code InvalidArgument} for a version id) if the request needs more. */
    static void check(S3Operation op, HttpMethod method, S3Path path, MultiMap params, MultiMap headers) {
        for (String name : params.names()) {
            if (SUBRESOURCES.contains(name) && !SERVED.getOrDefault(name, Set.of()).contains(op)) {
                throw refused("The ?" + name + " subresource");
            }
            if (name.startsWith("response-") && !(ResponseOverrides.HEADERS.containsKey(name)
                    && (op == S3Operation.GET_OBJECT || op == S3Operation.HEAD_OBJECT))) {
                throw refused("The ?" + name + " override" + (ResponseOverrides.HEADERS.containsKey(name)
                        ? " on " + op.label()
                        : ""));
            }
        }
        boolean object = path.key() != null;
        if (params.contains("uploads") && !(object && method == HttpMethod.POST)
                && op != S3Operation.LIST_MULTIPART_UPLOADS) {
            throw refused(method + " ?uploads");
        }
        if (params.contains("uploadId") && !object) {
            throw refused("?uploadId on a bucket");
        }
        if (params.contains("partNumber") && !(method == HttpMethod.PUT && params.contains("uploadId"))
                && op != S3Operation.GET_OBJECT && op != S3Operation.HEAD_OBJECT) {
            throw refused(method + " with ?partNumber");
        }
        if (params.contains("delete") && !(!object && method == HttpMethod.POST)) {
            throw refused(method + " ?delete" + (object ? " on an object" : ""));
        }
        String versionId = params.get("versionId");
        if (versionId != null && !versionId.equals("null")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid version id specified: this node keeps no "
                    + "object versions (every version id is null), not " + versionId + ".");
        }
        for (String name : headers.names()) {
            check(op, name.toLowerCase(Locale.ROOT), headers.get(name));
        }
    }

    private static void check(S3Operation op, String header, String value) {
        Acls.checkHeader(op, header, value);
        for (String refused : HEADERS) {
            if (refused.endsWith("-") ? header.startsWith(refused) : header.equals(refused)) {
                throw refused("The header " + header);
            }
        }
        Set<String> accepted = ONLY_DEFAULT.get(header);
        if (accepted != null && !accepted.contains(value.trim())) {
            throw refused("The header " + header + ": " + value.trim() + " (only " + String.join(" or ", accepted)
                    + " is)");
        }
        if ((header.equals(PrefixedPut.FROM) || header.equals(PrefixedPut.BYTES)) && op != S3Operation.PUT_OBJECT) {
            throw refused("The header " + header + " on " + op.label() + " (promptcache's prefixed PUT is a "
                    + "PutObject)");
        }
        if ((header.equals("if-match") || header.equals("if-none-match")) && !CONDITIONAL.contains(op)
                || header.equals("if-none-match") && op == S3Operation.DELETE_OBJECT) {
            throw refused(header + " on " + op.label());
        }
    }

    private static S3Exception refused(String what) {
        return new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, what + " is not implemented by this node; nothing was "
                + "done. See the storage-node README for the operations it serves.");
    }
}
