package io.promptcache.storage.s3;

import java.nio.charset.StandardCharsets;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.BucketCannedACL;
import software.amazon.awssdk.services.s3.model.GetObjectAclResponse;
import software.amazon.awssdk.services.s3.model.Grant;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectCannedACL;
import software.amazon.awssdk.services.s3.model.Permission;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.Type;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * ACLs as S3 answers them for a bucket whose ACLs are disabled (Object Ownership "bucket owner enforced", S3's
 * default), AWS SDK v2 on a real socket (issue 73: every ACL but the default was 501): the ACL that holds anyway is
 * accepted, any other refused with S3's own error for it, the owner's full control read back, and nothing changes.
 */
@QuarkusTest
class AclTest extends SdkBucketFixture {

    private static final byte[] BODY = "the object's bytes".getBytes(StandardCharsets.UTF_8);

    @BeforeEach
    void putObject() {
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(BODY));
    }

    @Test
    void shouldReadTheOwnersFullControlOfObjectsAndBuckets() {
        GetObjectAclResponse object = s3.getObjectAcl(b -> b.bucket(bucket).key("k"));
        assertThat(object.owner().id()).isEqualTo(S3Xml.OWNER);
        assertThat(object.grants()).singleElement().satisfies(g -> {
            assertThat(g.permission()).isEqualTo(Permission.FULL_CONTROL);
            assertThat(g.grantee().type()).isEqualTo(Type.CANONICAL_USER);
            assertThat(g.grantee().id()).isEqualTo(S3Xml.OWNER);
        });
        assertThat(s3.getBucketAcl(b -> b.bucket(bucket)).grants()).singleElement()
                .satisfies(g -> assertThat(g.permission()).isEqualTo(Permission.FULL_CONTROL));
        assertError(() -> s3.getObjectAcl(b -> b.bucket(bucket).key("missing")), 404, "NoSuchKey");
        assertError(() -> s3.getBucketAcl(b -> b.bucket(bucket + "-missing")), 404, "NoSuchBucket");
    }

    @Test
    void shouldTakeTheAclThatHoldsAnywayAndChangeNothing() {
        s3.putObjectAcl(b -> b.bucket(bucket).key("k").acl(ObjectCannedACL.PRIVATE));
        s3.putObjectAcl(b -> b.bucket(bucket).key("k").acl(ObjectCannedACL.BUCKET_OWNER_FULL_CONTROL));
        s3.putBucketAcl(b -> b.bucket(bucket).acl(BucketCannedACL.PRIVATE));
        s3.putObject(b -> b.bucket(bucket).key("private").acl(ObjectCannedACL.PRIVATE), RequestBody.fromBytes(BODY));
        s3.putObject(b -> b.bucket(bucket).key("owner").acl(ObjectCannedACL.BUCKET_OWNER_FULL_CONTROL),
                RequestBody.fromBytes(BODY));
        s3.createMultipartUpload(b -> b.bucket(bucket).key("mp").acl(ObjectCannedACL.PRIVATE));
        String privateBucket = bucket + "-private";
        s3.createBucket(b -> b.bucket(privateBucket).acl(BucketCannedACL.PRIVATE));
        s3.headBucket(b -> b.bucket(privateBucket));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asByteArray()).isEqualTo(BODY);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("private")).asByteArray()).isEqualTo(BODY);
        assertError(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("missing").acl(ObjectCannedACL.PRIVATE)), 404,
                "NoSuchKey");
    }

    @Test
    void shouldRefuseAnyOtherAclWithS3sErrorAndStoreNothing() {
        // on writes of objects: AccessControlListNotSupported, nothing stored
        assertError(() -> s3.putObject(b -> b.bucket(bucket).key("public").acl(ObjectCannedACL.PUBLIC_READ),
                RequestBody.fromBytes(BODY)), 400, "AccessControlListNotSupported");
        assertError(() -> s3.putObject(b -> b.bucket(bucket).key("granted").grantRead("id=\"someone\""),
                RequestBody.fromBytes(BODY)), 400, "AccessControlListNotSupported");
        assertError(() -> s3.createMultipartUpload(b -> b.bucket(bucket).key("mp")
                .acl(ObjectCannedACL.AUTHENTICATED_READ)), 400, "AccessControlListNotSupported");
        assertError(() -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("k").destinationBucket(bucket)
                .destinationKey("copy").acl(ObjectCannedACL.PUBLIC_READ_WRITE)), 400, "AccessControlListNotSupported");
        for (String key : new String[]{"public", "granted", "copy"}) {
            assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key(key))).as(key)
                    .isInstanceOf(NoSuchKeyException.class);
        }
        // ACL writes that grant more, or an ACL document: refused, the object's bytes kept
        assertError(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("k").acl(ObjectCannedACL.PUBLIC_READ)), 400,
                "AccessControlListNotSupported");
        Grant grant = Grant.builder().grantee(e -> e.type(Type.CANONICAL_USER).id("someone"))
                .permission(Permission.READ).build();
        assertError(() -> s3.putObjectAcl(b -> b.bucket(bucket).key("k").accessControlPolicy(p -> p
                .owner(o -> o.id(S3Xml.OWNER)).grants(grant))), 400, "AccessControlListNotSupported");
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asByteArray()).isEqualTo(BODY);
        // a bucket with any ACL but private: InvalidBucketAclWithObjectOwnership, not made
        for (BucketCannedACL acl : new BucketCannedACL[]{BucketCannedACL.PUBLIC_READ,
                BucketCannedACL.PUBLIC_READ_WRITE, BucketCannedACL.AUTHENTICATED_READ}) {
            String name = bucket + "-" + acl.toString().replace('-', 'x');
            assertError(() -> s3.createBucket(b -> b.bucket(name).acl(acl)), 400,
                    "InvalidBucketAclWithObjectOwnership");
            assertThatThrownBy(() -> s3.headBucket(b -> b.bucket(name))).as(name).isInstanceOf(S3Exception.class);
        }
    }

    private static void assertError(ThrowingCallable call, int status, String code) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
        });
    }
}
