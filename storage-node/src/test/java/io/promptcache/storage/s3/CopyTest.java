package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.TierPolicy;
import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * CopyObject and UploadPartCopy through the real AWS SDK on a real socket: copies share the source's bytes (the
 * node's physical bytes do not grow), return exactly the right bytes for every range, and outlive their source.
 */
@QuarkusTest
class CopyTest extends SdkBucketFixture {

    private static final int MIB = 1 << 20;

    @Inject
    ObjectStore store;

    @Test
    void shouldCopyAWholeObjectWithoutUsingBytes() {
        // Given
        byte[] body = S3SdkTest.bytes(3 * MIB, 1);
        String sourceEtag = s3.putObject(b -> b.bucket(bucket).key("src").contentType("application/x-kv")
                .metadata(Map.of("turn", "1")), RequestBody.fromBytes(body)).eTag();
        long physical = store.usedBytes();
        long logical = store.logicalBytes();
        // When
        String copyEtag = s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                .destinationKey("copy")).copyObjectResult().eTag();
        s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket).destinationKey("other")
                .metadataDirective(MetadataDirective.REPLACE).contentType("text/plain").metadata(Map.of("x", "y")));
        // Then
        assertThat(copyEtag).isEqualTo(sourceEtag);
        assertThat(store.usedBytes()).isEqualTo(physical);
        assertThat(store.logicalBytes()).isEqualTo(logical + 2L * body.length);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("copy")).asByteArray()).isEqualTo(body);
        var copied = s3.headObject(b -> b.bucket(bucket).key("copy"));
        assertThat(copied.contentType()).isEqualTo("application/x-kv");
        assertThat(copied.metadata()).containsEntry("turn", "1");
        var replaced = s3.headObject(b -> b.bucket(bucket).key("other"));
        assertThat(replaced.contentType()).isEqualTo("text/plain");
        assertThat(replaced.metadata()).containsExactlyEntriesOf(Map.of("x", "y"));
        // and the source may go: the copies keep its bytes, which are freed with the last of them
        s3.deleteObject(b -> b.bucket(bucket).key("src"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("copy").range("bytes=100-199")).asByteArray())
                .isEqualTo(Arrays.copyOfRange(body, 100, 200));
        assertThat(store.usedBytes()).isEqualTo(physical);
        s3.deleteObject(b -> b.bucket(bucket).key("copy"));
        assertThat(store.usedBytes()).isEqualTo(physical);
        s3.deleteObject(b -> b.bucket(bucket).key("other"));
        assertThat(store.usedBytes()).isEqualTo(physical - body.length);
    }

    @Test
    void shouldRefuseBadCopies() {
        s3.putObject(b -> b.bucket(bucket).key("src"), RequestBody.fromBytes(S3SdkTest.bytes(1000, 2)));
        assertError(() -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("missing").destinationBucket(bucket)
                .destinationKey("copy")), 404, "NoSuchKey");
        assertError(() -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                .destinationKey("src")), 400, "InvalidRequest");
        assertError(() -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                .destinationKey("copy").copySourceIfMatch("\"0123456789abcdef0123456789abcdef\"")), 412,
                "PreconditionFailed");
        assertError(() -> s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket("no-bucket")
                .destinationKey("copy")), 404, "NoSuchBucket");
        // a copy onto itself that replaces the metadata is allowed
        s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket).destinationKey("src")
                .metadataDirective(MetadataDirective.REPLACE).metadata(Map.of("v", "2")));
        assertThat(s3.headObject(b -> b.bucket(bucket).key("src")).metadata()).containsEntry("v", "2");
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("src")).asByteArray())
                .isEqualTo(S3SdkTest.bytes(1000, 2));
    }

    @Test
    void shouldCompleteACopiedRangePlusNewBytesIntoAnObjectThatCostsOnlyTheNewBytes() throws Exception {
        // Given: turn 1 of a conversation, 3 MiB
        byte[] turn1 = S3SdkTest.bytes(3 * MIB, 3);
        s3.putObject(b -> b.bucket(bucket).key("turn1"), RequestBody.fromBytes(turn1));
        long physical = store.usedBytes();
        // When: turn 2 = its first 2 MiB, copied by reference, plus 1 MiB + 5 new bytes
        byte[] fresh = S3SdkTest.bytes(MIB + 5, 4);
        byte[] turn2 = concat(Arrays.copyOf(turn1, 2 * MIB), fresh);
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("turn2")).uploadId();
        String copied = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("turn1").destinationBucket(bucket)
                .destinationKey("turn2").uploadId(id).partNumber(1).copySourceRange("bytes=0-" + (2 * MIB - 1)))
                .copyPartResult().eTag();
        String uploaded = s3.uploadPart(b -> b.bucket(bucket).key("turn2").uploadId(id).partNumber(2),
                RequestBody.fromBytes(fresh)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("turn2").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, copied), part(2, uploaded))));
        // Then: it costs only the new bytes, and every range reads right
        assertThat(store.usedBytes()).isEqualTo(physical + fresh.length);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("turn2")).contentLength()).isEqualTo(turn2.length);
        assertRanges("turn2", turn2, 5);
        // and turn 3 continues turn 2 across both of its extents
        byte[] fresh3 = S3SdkTest.bytes(700_000, 6);
        byte[] turn3 = concat(Arrays.copyOf(turn2, 2 * MIB + 1000), fresh3);
        String id3 = s3.createMultipartUpload(b -> b.bucket(bucket).key("turn3")).uploadId();
        String c3 = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("turn2").destinationBucket(bucket)
                .destinationKey("turn3").uploadId(id3).partNumber(1).copySourceRange("bytes=0-" + (2 * MIB + 999)))
                .copyPartResult().eTag();
        String u3 = s3.uploadPart(b -> b.bucket(bucket).key("turn3").uploadId(id3).partNumber(2),
                RequestBody.fromBytes(fresh3)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("turn3").uploadId(id3)
                .multipartUpload(m -> m.parts(part(1, c3), part(2, u3))));
        assertRanges("turn3", turn3, 7);
        assertThat(store.usedBytes()).isEqualTo(physical + fresh.length + fresh3.length);
        // deleting the parents keeps what the children use; with bodies on disk, the tails no child reads go
        // (turn 1's last MiB, all of turn 2's new bytes but the 1,000 turn 3 shares)
        long trimmedBefore = store.tierStats().trimmed();
        s3.deleteObject(b -> b.bucket(bucket).key("turn1"));
        s3.deleteObject(b -> b.bucket(bucket).key("turn2"));
        assertRanges("turn3", turn3, 8);
        assertUsed((physical - turn1.length) + 2 * MIB + 1000 + fresh3.length,
                physical + fresh.length + fresh3.length);
        if (store.options().policy() != TierPolicy.EVICT_ONLY) {
            assertThat(store.tierStats().trimmed() - trimmedBefore).isEqualTo(trims() ? 2 : 0);
        }
        s3.deleteObject(b -> b.bucket(bucket).key("turn3"));
        assertThat(store.usedBytes()).isEqualTo(physical - turn1.length);
    }

    @Test
    void shouldTrimOnlyTheTailNoObjectReads() throws Exception {
        // Given: a 3 MiB parent and two continuations sharing its first 1 MiB and 2 MiB
        byte[] parent = S3SdkTest.bytes(3 * MIB, 10);
        s3.putObject(b -> b.bucket(bucket).key("p"), RequestBody.fromBytes(parent));
        long before = store.usedBytes() - parent.length;
        byte[] short1 = continueWith("p", "c1", parent, MIB, 11);
        byte[] long2 = continueWith("p", "c2", parent, 2 * MIB, 12);
        // When: the parent goes, then the continuation reading further
        s3.deleteObject(b -> b.bucket(bucket).key("p"));
        long tails = short1.length - MIB + long2.length - 2 * MIB;
        assertUsed(before + 2 * MIB + tails, before + parent.length + tails);
        s3.deleteObject(b -> b.bucket(bucket).key("c2"));
        // Then: what is left is what c1 reads, and it reads right, also after the truncation ran
        assertUsed(before + short1.length, before + parent.length + short1.length - MIB);
        assertRanges("c1", short1, 13);
        Thread.sleep(2500);
        assertRanges("c1", short1, 14);
        s3.deleteObject(b -> b.bucket(bucket).key("c1"));
        assertThat(store.usedBytes()).isEqualTo(before);
    }

    /** Stores {@code key} as the first {@code shared} bytes of {@code source} plus 100,000 new bytes. */
    private byte[] continueWith(String sourceKey, String key, byte[] source, int shared, long seed) {
        byte[] fresh = S3SdkTest.bytes(100_000, seed);
        Continuations.store(s3, bucket, sourceKey, key, shared, fresh);
        return concat(Arrays.copyOf(source, shared), fresh);
    }

    /** Whether this profile's bodies are on disk when written, so a file's unread tail is cut at once. */
    private boolean trims() {
        return store.options().policy() == TierPolicy.WRITE_THROUGH && !store.options().asyncWrites();
    }

    /**
     * The node's physical bytes: {@code trimmed} where bodies are on disk, {@code untrimmed} where they are only in
     * RAM (not trimmed); under evict_only each body is either, depending on whether the RAM tier evicted it yet.
     */
    private void assertUsed(long trimmed, long untrimmed) {
        if (store.options().policy() == TierPolicy.EVICT_ONLY) {
            assertThat(store.usedBytes()).isBetween(trimmed, untrimmed);
        } else {
            assertThat(store.usedBytes()).isEqualTo(trims() ? trimmed : untrimmed);
        }
    }

    @Test
    void shouldRefuseBadSourceRanges() {
        s3.putObject(b -> b.bucket(bucket).key("src"), RequestBody.fromBytes(S3SdkTest.bytes(1000, 9)));
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("dst")).uploadId();
        for (String range : new String[]{"bytes=10-5", "bytes=5-", "bytes=-5", "items=0-1"}) {
            assertError(() -> s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                    .destinationKey("dst").uploadId(id).partNumber(1).copySourceRange(range)), 400,
                    "InvalidArgument");
        }
        // outside the source's 1000 bytes: what S3 answers (issue 73)
        for (String range : new String[]{"bytes=0-1000", "bytes=1000-1001"}) {
            assertError(() -> s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                    .destinationKey("dst").uploadId(id).partNumber(1).copySourceRange(range)), 416, "InvalidRange");
        }
        assertError(() -> s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("missing")
                .destinationBucket(bucket).destinationKey("dst").uploadId(id).partNumber(1)), 404, "NoSuchKey");
        assertError(() -> s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                .destinationKey("dst").uploadId("0123456789abcdef0123456789abcdef").partNumber(1)), 404,
                "NoSuchUpload");
        // the whole source without a range, then aborted: nothing left behind
        long physical = store.usedBytes();
        s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("src").destinationBucket(bucket)
                .destinationKey("dst").uploadId(id).partNumber(1));
        s3.deleteObject(b -> b.bucket(bucket).key("src"));
        assertThat(store.usedBytes()).isEqualTo(physical);
        s3.abortMultipartUpload(b -> b.bucket(bucket).key("dst").uploadId(id));
        assertThat(store.usedBytes()).isEqualTo(physical - 1000);
    }

    private void assertRanges(String key, byte[] expected, long seed) {
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray()).isEqualTo(expected);
        Random random = new Random(seed);
        for (int i = 0; i < 40; i++) {
            int first = random.nextInt(expected.length);
            int last = first + random.nextInt(expected.length - first);
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=" + first + "-" + last))
                    .asByteArray()).as("bytes %d-%d", first, last)
                    .isEqualTo(Arrays.copyOfRange(expected, first, last + 1));
        }
        int n = expected.length;
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=-10")).asByteArray())
                .isEqualTo(Arrays.copyOfRange(expected, n - 10, n));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    private static CompletedPart part(int number, String etag) {
        return CompletedPart.builder().partNumber(number).eTag(etag).build();
    }

    private static void assertError(Runnable call, int status, String code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
        });
    }
}
