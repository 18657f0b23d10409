package io.promptcache.storage.s3;

import java.util.Locale;
import java.util.Set;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.ext.web.RoutingContext;

/**
 * ACLs as S3 answers them for a bucket whose Object Ownership is "bucket owner enforced" (S3's default since 2023):
 * ACLs are disabled, the one owner ({@link S3Xml#OWNER}, whoever holds a key) has full control of everything, and
 * access is the node's keys alone. So a request may name the ACL that holds anyway ({@code x-amz-acl: private} or
 * {@code bucket-owner-full-control}), and any other canned ACL or {@code x-amz-grant-*} header is refused with S3's
 * own error for it: {@code 400 AccessControlListNotSupported}, or {@code 400 InvalidBucketAclWithObjectOwnership} on
 * CreateBucket. {@code GET ?acl} answers the owner's full control; {@code PUT ?acl} with the ACL that holds anyway
 * (a canned one, no document) changes nothing and answers 200, where S3 refuses every ACL write on such a bucket
 * (storage-node README, "Where it differs from S3").
 */
final class Acls {

    /** The canned ACLs that grant nothing beyond the owner's full control, which holds anyway. */
    private static final Set<String> HELD = Set.of("private", "bucket-owner-full-control");

    private final ObjectStore store;

    Acls(ObjectStore store) {
        this.store = store;
    }

    /** Refuses an ACL header that would grant more than the owner's full control (on any operation). */
    static void checkHeader(S3Operation op, String header, String value) {
        boolean canned = header.equals("x-amz-acl");
        if (canned && HELD.contains(value.trim().toLowerCase(Locale.ROOT)) || !canned && !header.startsWith(
                "x-amz-grant-")) {
            return;
        }
        if (op == S3Operation.CREATE_BUCKET) {
            throw new S3Exception(S3ErrorCode.INVALID_BUCKET_ACL_WITH_OBJECT_OWNERSHIP, "Bucket cannot have ACLs set"
                    + " with ObjectOwnership's BucketOwnerEnforced setting (" + header + ": " + value.trim() + "): "
                    + "this node's buckets have no ACLs; access is its keys alone.");
        }
        throw new S3Exception(S3ErrorCode.ACCESS_CONTROL_LIST_NOT_SUPPORTED, "The bucket does not allow ACLs ("
                + header + ": " + value.trim() + "): access to this node is its keys alone; only private or "
                + "bucket-owner-full-control may be named.");
    }

    /** GetBucketAcl / GetObjectAcl: the owner's full control (of an existing bucket or object). */
    void get(RoutingContext ctx, S3Path path) {
        exists(path);
        S3Xml.send(ctx, S3Xml.HEADER + "<AccessControlPolicy" + S3Xml.NS + "><Owner><ID>" + S3Xml.OWNER
                + "</ID><DisplayName>" + S3Xml.OWNER + "</DisplayName></Owner><AccessControlList><Grant><Grantee "
                + "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xsi:type=\"CanonicalUser\"><ID>"
                + S3Xml.OWNER + "</ID><DisplayName>" + S3Xml.OWNER + "</DisplayName></Grantee><Permission>"
                + "FULL_CONTROL</Permission></Grant></AccessControlList></AccessControlPolicy>");
    }

    /**
     * PutBucketAcl / PutObjectAcl: only the canned ACL that holds anyway (its header checked before), no ACL
     * document; nothing changes.
     */
    void put(RoutingContext ctx, S3Path path) {
        String length = ctx.request().getHeader("Content-Length");
        boolean document = length == null
                ? ctx.request().headers().contains("Transfer-Encoding")
                : !length.trim().equals("0");
        if (document) {
            throw new S3Exception(S3ErrorCode.ACCESS_CONTROL_LIST_NOT_SUPPORTED, "The bucket does not allow ACLs: "
                    + "an AccessControlPolicy document is not taken; access to this node is its keys alone.");
        }
        exists(path);
        ctx.response().setStatusCode(200).end();
    }

    private void exists(S3Path path) {
        if (path.key() == null) {
            store.bucketCreated(path.bucket());
        } else {
            store.head(path.bucket(), path.key());
        }
    }
}
