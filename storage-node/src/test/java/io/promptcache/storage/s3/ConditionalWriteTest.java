package io.promptcache.storage.s3;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Conditional writes as S3 does them (AWS SDK v2 on a real socket): {@code If-None-Match: *} creates only,
 * {@code If-Match} replaces or deletes only the version named; a failed condition changes nothing. Create-only
 * writes are how several engine replicas store one prefix without clobbering each other.
 */
@QuarkusTest
class ConditionalWriteTest extends SdkBucketFixture {

    @Test
    void shouldCreateOnlyWithIfNoneMatch() {
        // Given: a create-only PUT of a new key succeeds
        s3.putObject(b -> b.bucket(bucket).key("k").ifNoneMatch("*"), body("first"));

        // When / Then: a second one is 412 and the object keeps its bytes
        assertFailed(412, "PreconditionFailed", () -> s3.putObject(b -> b.bucket(bucket).key("k").ifNoneMatch("*"),
                body("second")));
        assertThat(text("k")).isEqualTo("first");
    }

    @Test
    void shouldReplaceOnlyTheVersionNamedByIfMatch() {
        String etag = s3.putObject(b -> b.bucket(bucket).key("k"), body("v1")).eTag();
        String etag2 = s3.putObject(b -> b.bucket(bucket).key("k").ifMatch(etag), body("v2")).eTag();
        assertThat(text("k")).isEqualTo("v2");

        // a stale ETag (the version that was replaced) changes nothing
        assertFailed(412, "PreconditionFailed", () -> s3.putObject(b -> b.bucket(bucket).key("k").ifMatch(etag),
                body("v3 from a stale reader")));
        assertThat(text("k")).isEqualTo("v2");
        // a key with no object has nothing to match
        assertFailed(404, "NoSuchKey", () -> s3.putObject(b -> b.bucket(bucket).key("absent").ifMatch(etag2),
                body("x")));
        assertFailed(404, "NoSuchKey", () -> s3.headObject(b -> b.bucket(bucket).key("absent")));
    }

    @Test
    void shouldCompleteAMultipartUploadOnlyIfTheConditionHolds() {
        s3.putObject(b -> b.bucket(bucket).key("k"), body("existing"));
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("k")).uploadId();
        String partEtag = s3.uploadPart(b -> b.bucket(bucket).key("k").uploadId(uploadId).partNumber(1),
                body("multipart")).eTag();
        CompletedPart part = CompletedPart.builder().partNumber(1).eTag(partEtag).build();

        // When: completed create-only while the key has an object
        assertFailed(412, "PreconditionFailed", () -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("k")
                .uploadId(uploadId).ifNoneMatch("*").multipartUpload(m -> m.parts(part))));

        // Then: nothing changed and the upload is still there, to be completed once the condition holds
        assertThat(text("k")).isEqualTo("existing");
        assertThat(s3.listParts(b -> b.bucket(bucket).key("k").uploadId(uploadId)).parts()).hasSize(1);
        String current = s3.headObject(b -> b.bucket(bucket).key("k")).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("k").uploadId(uploadId).ifMatch(current)
                .multipartUpload(m -> m.parts(part)));
        assertThat(text("k")).isEqualTo("multipart");
    }

    @Test
    void shouldCopyOnlyIfTheDestinationMeetsTheCondition() {
        s3.putObject(b -> b.bucket(bucket).key("src"), body("source"));
        s3.putObject(b -> b.bucket(bucket).key("dst"), body("destination"));
        assertFailed(412, "PreconditionFailed", () -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src")
                .destinationBucket(bucket).destinationKey("dst").ifNoneMatch("*")));
        assertThat(text("dst")).isEqualTo("destination");
        s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket).destinationKey("new")
                .ifNoneMatch("*"));
        assertThat(text("new")).isEqualTo("source");
    }

    @Test
    void shouldDeleteOnlyTheVersionNamedByIfMatch() {
        String etag = s3.putObject(b -> b.bucket(bucket).key("k"), body("v1")).eTag();
        s3.putObject(b -> b.bucket(bucket).key("k"), body("v2"));
        assertFailed(412, "PreconditionFailed", () -> s3.deleteObject(b -> b.bucket(bucket).key("k").ifMatch(etag)));
        assertThat(text("k")).isEqualTo("v2");
        // DeleteObjects: an <ETag> per object, failures reported per key
        ObjectIdentifier stale = ObjectIdentifier.builder().key("k").eTag(etag).build();
        var result = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(stale)));
        assertThat(result.errors()).singleElement().satisfies(e -> assertThat(e.code()).isEqualTo(
                "PreconditionFailed"));
        assertThat(text("k")).isEqualTo("v2");
        String current = s3.headObject(b -> b.bucket(bucket).key("k")).eTag();
        s3.deleteObject(b -> b.bucket(bucket).key("k").ifMatch(current));
        assertFailed(404, "NoSuchKey", () -> s3.headObject(b -> b.bucket(bucket).key("k")));
    }

    @Test
    void shouldLetExactlyOneOfConcurrentCreateOnlyWritersWin() throws Exception {
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> outcomes = new ArrayList<>();
        byte[] large = new byte[256 * 1024];
        for (int w = 0; w < writers; w++) {
            String name = "writer-" + w;
            Callable<String> write = () -> {
                start.await();
                try {
                    s3.putObject(b -> b.bucket(bucket).key("race").ifNoneMatch("*").metadata(Map.of("by", name)),
                            RequestBody.fromBytes(large));
                    return "won:" + name;
                } catch (S3Exception e) {
                    return e.awsErrorDetails().errorCode();
                }
            };
            outcomes.add(pool.submit(write));
        }
        start.countDown();
        List<String> results = new ArrayList<>();
        for (Future<String> outcome : outcomes) {
            results.add(outcome.get(60, TimeUnit.SECONDS));
        }
        pool.shutdown();
        List<String> winners = results.stream().filter(r -> r.startsWith("won:")).toList();
        assertThat(winners).as(results.toString()).hasSize(1);
        assertThat(results).filteredOn(r -> !r.startsWith("won:"))
                .allMatch(r -> r.equals("PreconditionFailed") || r.equals("ConditionalRequestConflict"));
        String owner = s3.headObject(b -> b.bucket(bucket).key("race")).metadata().get("by");
        assertThat(winners.get(0)).isEqualTo("won:" + owner);
    }

    @Test
    void shouldRefuseConditionsItDoesNotImplement() {
        s3.putObject(b -> b.bucket(bucket).key("k"), body("v1"));
        String etag = s3.headObject(b -> b.bucket(bucket).key("k")).eTag();
        // If-None-Match with an entity tag is not defined for writes
        assertFailed(501, "NotImplemented", () -> s3.putObject(b -> b.bucket(bucket).key("k").ifNoneMatch(etag),
                body("v2")));
        // a condition on an operation that takes none is refused, not ignored
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("k")).uploadId();
        assertFailed(501, "NotImplemented", () -> s3.uploadPart(b -> b.bucket(bucket).key("k").uploadId(uploadId)
                .partNumber(1).overrideConfiguration(o -> o.putHeader("If-Match", etag)), body("part")));
        assertFailed(501, "NotImplemented", () -> s3.deleteObject(b -> b.bucket(bucket).key("k")
                .ifMatchSize(2L)));
        assertThat(text("k")).isEqualTo("v1");
    }

    private String text(String key) {
        return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
    }

    private static RequestBody body(String text) {
        return RequestBody.fromString(text);
    }

    private static void assertFailed(int status, String code, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            if (e.awsErrorDetails().errorCode() != null) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }
}
