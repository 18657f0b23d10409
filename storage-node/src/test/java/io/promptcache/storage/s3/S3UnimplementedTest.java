package io.promptcache.storage.s3;

import java.nio.charset.StandardCharsets;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;
import software.amazon.awssdk.services.s3.model.StorageClass;
import software.amazon.awssdk.services.s3.model.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Nothing the node does not implement is served as another operation: S3 subresources and headers it lacks are
 * refused with {@code 501 NotImplemented} and change nothing (AWS SDK v2 on a real socket). Such cases once lost
 * data: {@code PUT ?acl} replaced the object's bytes with the ACL document (ACLs now: AclTest), {@code DELETE
 * ?tagging} deleted the object; {@code GET ?versions} and {@code GET ?uploads} answered an object listing.
 */
@QuarkusTest
class S3UnimplementedTest extends SdkBucketFixture {

    private static final byte[] BODY = "the object's bytes".getBytes(StandardCharsets.UTF_8);

    @BeforeEach
    void putObject() {
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(BODY));
    }

    @Test
    void shouldRefuseATaggingDeleteAndKeepTheObject() {
        assertNotImplemented(() -> s3.deleteObjectTagging(b -> b.bucket(bucket).key("k")));
        assertNotImplemented(() -> s3.putObjectTagging(b -> b.bucket(bucket).key("k")
                .tagging(t -> t.tagSet(Tag.builder().key("a").value("b").build()))));
        assertThat(bytes("k")).isEqualTo(BODY);
    }

    @Test
    void shouldRefuseBucketSubresourcesInsteadOfListingObjects() {
        assertNotImplemented(() -> s3.getBucketPolicy(b -> b.bucket(bucket)));
        assertNotImplemented(() -> s3.getBucketTagging(b -> b.bucket(bucket)));
        assertNotImplemented(() -> s3.getBucketLifecycleConfiguration(b -> b.bucket(bucket)));
        assertNotImplemented(() -> s3.putBucketVersioning(b -> b.bucket(bucket)
                .versioningConfiguration(v -> v.status("Enabled"))));
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents()).hasSize(1);
    }

    @Test
    void shouldRefuseWritesAskingForWhatTheNodeLacksAndStoreNothing() {
        assertNotImplemented(() -> s3.putObject(b -> b.bucket(bucket).key("tagged").tagging("a=b"),
                RequestBody.fromBytes(BODY)));
        assertNotImplemented(() -> s3.putObject(b -> b.bucket(bucket).key("sse")
                .serverSideEncryption(ServerSideEncryption.AES256), RequestBody.fromBytes(BODY)));
        assertNotImplemented(() -> s3.putObject(b -> b.bucket(bucket).key("glacier")
                .storageClass(StorageClass.GLACIER), RequestBody.fromBytes(BODY)));
        for (String key : new String[]{"tagged", "sse", "glacier"}) {
            assertThatThrownBy(() -> bytes(key)).as(key).isInstanceOf(NoSuchKeyException.class);
        }
        assertThat(bytes("k")).isEqualTo(BODY);
        // what the node does anyway is accepted when asked for (ACLs: AclTest)
        s3.putObject(b -> b.bucket(bucket).key("plain").storageClass(StorageClass.STANDARD),
                RequestBody.fromBytes(BODY));
        assertThat(bytes("plain")).isEqualTo(BODY);
    }

    @Test
    void shouldRefuseReadVariantsItDoesNotServe() {
        assertNotImplemented(() -> s3.getObjectRetention(b -> b.bucket(bucket).key("k")));
        assertNotImplemented(() -> s3.getObjectLegalHold(b -> b.bucket(bucket).key("k")));
        assertNotImplemented(() -> s3.getObjectAttributes(b -> b.bucket(bucket).key("k")
                .objectAttributesWithStrings("ETag")));
    }

    @Test
    void shouldServeTheNullVersionAndRefuseOtherVersionIds() {
        assertThat(s3.getObject(b -> b.bucket(bucket).key("k").versionId("null")).response().contentLength())
                .isEqualTo(BODY.length);
        assertThatThrownBy(() -> s3.getObject(b -> b.bucket(bucket).key("k").versionId("3HL4kqtJlcpXroDTDmJ")))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidArgument");
                });
        assertThatThrownBy(() -> s3.deleteObject(b -> b.bucket(bucket).key("k").versionId("3HL4kqtJlcpXroDTDmJ")))
                .isInstanceOf(S3Exception.class);
        assertThat(bytes("k")).isEqualTo(BODY);
    }

    private byte[] bytes(String key) {
        ResponseBytes<GetObjectResponse> object = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key));
        return object.asByteArray();
    }

    private static void assertNotImplemented(ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(501);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("NotImplemented");
            assertThat(e.awsErrorDetails().errorMessage()).contains("not implemented by this node");
        });
    }
}
