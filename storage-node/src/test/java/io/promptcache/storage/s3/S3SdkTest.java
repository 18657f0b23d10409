package io.promptcache.storage.s3;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The node through the real AWS SDK v2 sync client (url-connection) on a real socket. */
@QuarkusTest
class S3SdkTest extends SdkBucketFixture {

    /** The tier policy the node under test runs (readiness data). */
    protected String expectedTierPolicy() {
        return "write_through";
    }

    protected long expectedRamCapacityBytes() {
        return 512L << 20;
    }

    @Test
    void shouldRunOnItsTierConfiguration() {
        TierProfiles.assertRunningTier(expectedTierPolicy(), expectedRamCapacityBytes());
    }

    private S3Client client(RequestChecksumCalculation checksums) {
        return SdkClients.sync(endpoint, checksums);
    }

    @Test
    void shouldPutAndGetWithTheSdkDefaults() {
        // Given: SDK defaults (flexible checksums, aws-chunked body with a trailing checksum)
        byte[] body = bytes(300_000, 1);
        // When
        s3.putObject(b -> b.bucket(bucket).key("ns/a+b c/obj").contentType("application/x-kv")
                .metadata(Map.of("blocks", "12")), RequestBody.fromBytes(body));
        ResponseBytes<GetObjectResponse> got = s3.getObjectAsBytes(b -> b.bucket(bucket).key("ns/a+b c/obj"));
        // Then
        assertThat(got.asByteArray()).isEqualTo(body);
        assertThat(got.response().eTag()).isEqualTo("\"" + md5Hex(body) + "\"");
        assertThat(got.response().contentType()).isEqualTo("application/x-kv");
        assertThat(got.response().metadata()).containsEntry("blocks", "12");
    }

    @Test
    void shouldPutWithContentMd5AndEveryChecksumAlgorithm() {
        byte[] body = bytes(70_000, 2);
        S3Client plain = client(RequestChecksumCalculation.WHEN_REQUIRED);
        try {
            plain.putObject(b -> b.bucket(bucket).key("plain"), RequestBody.fromBytes(body));
            assertThat(plain.getObjectAsBytes(b -> b.bucket(bucket).key("plain")).asByteArray()).isEqualTo(body);
        } finally {
            plain.close();
        }
        for (ChecksumAlgorithm algorithm : List.of(ChecksumAlgorithm.CRC32, ChecksumAlgorithm.CRC32_C,
                ChecksumAlgorithm.SHA1, ChecksumAlgorithm.SHA256)) {
            s3.putObject(b -> b.bucket(bucket).key("sum-" + algorithm).checksumAlgorithm(algorithm),
                    RequestBody.fromBytes(body));
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("sum-" + algorithm)).asByteArray())
                    .as(algorithm.toString()).isEqualTo(body);
        }
    }

    @Test
    void shouldTakeASinglePutLargerThanTheHttpLayerDefaultLimit() {
        byte[] body = bytes(12 << 20, 9);
        s3.putObject(b -> b.bucket(bucket).key("twelve-mib"), RequestBody.fromBytes(body));
        assertThat(md5Hex(s3.getObjectAsBytes(b -> b.bucket(bucket).key("twelve-mib")).asByteArray()))
                .isEqualTo(md5Hex(body));
    }

    @Test
    void shouldServeOneRangeWith206() {
        byte[] body = bytes(1 << 20, 3);
        s3.putObject(b -> b.bucket(bucket).key("kv"), RequestBody.fromBytes(body));
        ResponseBytes<GetObjectResponse> slice = s3.getObjectAsBytes(b -> b.bucket(bucket).key("kv")
                .range("bytes=1000-65535"));
        assertThat(slice.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(body, 1000, 65536));
        assertThat(slice.response().contentRange()).isEqualTo("bytes 1000-65535/" + body.length);
        ResponseBytes<GetObjectResponse> suffix = s3.getObjectAsBytes(b -> b.bucket(bucket).key("kv")
                .range("bytes=-10"));
        assertThat(suffix.asByteArray()).isEqualTo(java.util.Arrays.copyOfRange(body, body.length - 10,
                body.length));
        assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("kv")
                .range("bytes=" + body.length + "-")))
                .isInstanceOf(S3Exception.class)
                .satisfies(e -> {
                    assertThat(((S3Exception) e).statusCode()).isEqualTo(416);
                    assertThat(((S3Exception) e).awsErrorDetails().errorCode()).isEqualTo("InvalidRange");
                });
    }

    @Test
    void shouldHeadDeleteAndReportMissingKeys() {
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(new byte[123]));
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("k"));
        assertThat(head.contentLength()).isEqualTo(123L);
        s3.deleteObject(b -> b.bucket(bucket).key("k"));
        s3.deleteObject(b -> b.bucket(bucket).key("k"));
        assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")))
                .isInstanceOf(NoSuchKeyException.class)
                .satisfies(e -> assertThat(((S3Exception) e).requestId()).isNotBlank());
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("k")))
                .isInstanceOf(S3Exception.class)
                .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(404));
    }

    @Test
    void shouldManageBuckets() {
        assertThat(s3.listBuckets().buckets()).anySatisfy(b -> assertThat(b.name()).isEqualTo(bucket));
        s3.headBucket(b -> b.bucket(bucket));
        s3.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromBytes(new byte[1]));
        assertThatThrownBy(() -> s3.deleteBucket(b -> b.bucket(bucket)))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("BucketNotEmpty"));
        s3.deleteObject(b -> b.bucket(bucket).key("x"));
        s3.deleteBucket(b -> b.bucket(bucket));
        assertThatThrownBy(() -> s3.headBucket(b -> b.bucket(bucket)))
                .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(404));
        assertThatThrownBy(() -> s3.putObject(b -> b.bucket(bucket).key("x"), RequestBody.fromBytes(new byte[1])))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchBucket"));
        s3.createBucket(b -> b.bucket(bucket));
    }

    @Test
    void shouldListWithPrefixDelimiterAndContinuation() {
        List<String> keys = List.of("a/1", "a/2", "a/b/1", "a/b/2", "a/c/1", "b/1", "top");
        keys.forEach(k -> s3.putObject(b -> b.bucket(bucket).key(k), RequestBody.fromBytes(new byte[1])));
        List<String> all = new ArrayList<>();
        s3.listObjectsV2Paginator(b -> b.bucket(bucket).maxKeys(2)).contents()
                .forEach(o -> all.add(o.key()));
        assertThat(all).containsExactlyElementsOf(keys);
        ListObjectsV2Response rolled = s3.listObjectsV2(b -> b.bucket(bucket).prefix("a/").delimiter("/"));
        assertThat(rolled.contents()).extracting(S3Object::key).containsExactly("a/1", "a/2");
        assertThat(rolled.commonPrefixes()).extracting(p -> p.prefix()).containsExactly("a/b/", "a/c/");
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket).startAfter("a/c/1")).contents())
                .extracting(S3Object::key).containsExactly("b/1", "top");
    }

    @Test
    void shouldDeleteObjectsInOneRequest() {
        List.of("d/1", "d/2", "d/3").forEach(k -> s3.putObject(b -> b.bucket(bucket).key(k),
                RequestBody.fromBytes(new byte[1])));
        var result = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.objects(identifiers("d/1", "d/2",
                "never-existed"))));
        assertThat(result.deleted()).extracting(o -> o.key()).containsExactly("d/1", "d/2", "never-existed");
        assertThat(result.errors()).isEmpty();
        var quiet = s3.deleteObjects(b -> b.bucket(bucket).delete(d -> d.quiet(true).objects(identifiers("d/3"))));
        assertThat(quiet.deleted()).isEmpty();
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket).prefix("d/")).contents()).isEmpty();
    }

    private static List<ObjectIdentifier> identifiers(String... keys) {
        return java.util.Arrays.stream(keys).map(k -> ObjectIdentifier.builder().key(k).build()).toList();
    }

    static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static String md5Hex(byte[] b) {
        try {
            return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(b));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
