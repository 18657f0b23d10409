package io.promptcache.storage.s3;

import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.storage.store.ObjectStore;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.NoSuchUploadException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The node's sweep of abandoned multipart uploads, on a real socket through the real SDK, idle time 1.5 s: an upload
 * left after an uploaded part and a copied one (a store interrupted between its calls) is aborted, its bytes and
 * what it held of its parent freed, counted, and a client that comes back gets NoSuchUpload; an upload that keeps
 * receiving parts for longer than the idle time is never touched and completes.
 */
@QuarkusTest
@TestProfile(AbandonedUploadSweepTest.ShortIdle.class)
class AbandonedUploadSweepTest extends SdkBucketFixture {

    /** Uploads untouched for 1.5 s are abandoned (checked every 375 ms). */
    public static class ShortIdle implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.abandoned-upload-after", "1500ms");
        }
    }

    private static final int KIB = 1 << 10;

    @Inject
    ObjectStore store;

    @Inject
    MeterRegistry registry;

    @Test
    void shouldAbortAnAbandonedUploadAndKeepOneInUse() throws Exception {
        // Given: a parent object; an upload left after one uploaded and one copied part; an upload in use
        long before = store.usedBytes();
        double abortedBefore = registry.get("promptcache.storage.uploads.abandoned").counter().count();
        s3.putObject(b -> b.bucket(bucket).key("parent"), RequestBody.fromBytes(S3SdkTest.bytes(64 * KIB, 1)));
        String left = s3.createMultipartUpload(b -> b.bucket(bucket).key("left")).uploadId();
        s3.uploadPart(b -> b.bucket(bucket).key("left").uploadId(left).partNumber(2),
                RequestBody.fromBytes(S3SdkTest.bytes(32 * KIB, 2)));
        s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("parent").destinationBucket(bucket)
                .destinationKey("left").uploadId(left).partNumber(1).copySourceRange("bytes=0-4095"));
        s3.deleteObject(b -> b.bucket(bucket).key("parent"));
        assertThat(store.usedBytes()).isEqualTo(before + 36 * KIB); // 32 KiB + the 4 KiB of the parent's file it reads
        String used = s3.createMultipartUpload(b -> b.bucket(bucket).key("used")).uploadId();

        // When: the used upload gets a part every 250 ms for 3 s (twice the idle time), then the sweep is waited for
        CompletedPart last = null;
        for (int n = 1; n <= 12; n++) {
            int number = n;
            String etag = s3.uploadPart(b -> b.bucket(bucket).key("used").uploadId(used).partNumber(number),
                    RequestBody.fromBytes(S3SdkTest.bytes(KIB, number))).eTag();
            last = CompletedPart.builder().partNumber(number).eTag(etag).build();
            Thread.sleep(250);
        }
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (uploads().contains(left) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }

        // Then: the abandoned upload is gone with every byte it held (the parent's too); the used one is there
        assertThat(uploads()).containsExactly(used);
        assertThat(store.usedBytes()).isEqualTo(before + 12 * KIB);
        assertThat(registry.get("promptcache.storage.uploads.abandoned").counter().count())
                .isEqualTo(abortedBefore + 1);
        assertThatThrownBy(() -> s3.uploadPart(b -> b.bucket(bucket).key("left").uploadId(left).partNumber(3),
                RequestBody.fromBytes(new byte[10]))).isInstanceOf(NoSuchUploadException.class);
        // and the used upload completes with its last part alone
        CompletedPart part = last;
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("used").uploadId(used)
                .multipartUpload(m -> m.parts(part)));
        assertThat(s3.headObject(b -> b.bucket(bucket).key("used")).contentLength()).isEqualTo(KIB);
        assertThat(store.usedBytes()).isEqualTo(before + KIB);
    }

    private java.util.List<String> uploads() {
        return s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().stream().map(MultipartUpload::uploadId)
                .toList();
    }
}
