package io.promptcache.storage.s3;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Headers stored with an object and returned (AWS SDK v2 on a real socket): the content headers given at PUT,
 * CreateMultipartUpload and CopyObject REPLACE; GetObject's {@code response-*} overrides; the node's CRC32C with
 * {@code x-amz-checksum-mode: ENABLED}; CRC64NVME uploads.
 */
@QuarkusTest
class ObjectHeadersTest extends SdkBucketFixture {

    private static final Instant EXPIRES = Instant.parse("2030-01-02T03:04:05Z");
    private static final byte[] BODY = "some kv bytes".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldStoreAndReturnContentHeaders() {
        // Given: a PUT with every content header (the SDK's aws-chunked upload adds aws-chunked to Content-Encoding)
        s3.putObject(b -> b.bucket(bucket).key("k").cacheControl("max-age=60").contentDisposition(
                "attachment; filename=\"kv.bin\"").contentEncoding("gzip").contentLanguage("en").expires(EXPIRES)
                .contentType("application/x-kv"), RequestBody.fromBytes(BODY));

        // Then: GET and HEAD return them as given, without aws-chunked
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("k"));
        assertThat(head.cacheControl()).isEqualTo("max-age=60");
        assertThat(head.contentDisposition()).isEqualTo("attachment; filename=\"kv.bin\"");
        assertThat(head.contentEncoding()).isEqualTo("gzip");
        assertThat(head.contentLanguage()).isEqualTo("en");
        assertThat(instant(head.expiresString())).isEqualTo(EXPIRES);
        assertThat(head.contentType()).isEqualTo("application/x-kv");
        GetObjectResponse get = s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).response();
        assertThat(get.cacheControl()).isEqualTo("max-age=60");
        assertThat(get.contentEncoding()).isEqualTo("gzip");

        // a copy keeps them; a copy with REPLACE takes the request's and drops the rest
        s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("k").destinationBucket(bucket).destinationKey("copy"));
        assertThat(s3.headObject(b -> b.bucket(bucket).key("copy")).contentLanguage()).isEqualTo("en");
        s3.copyObject(b -> b.sourceBucket(bucket).sourceKey("k").destinationBucket(bucket).destinationKey("k")
                .metadataDirective(MetadataDirective.REPLACE).cacheControl("no-store"));
        HeadObjectResponse replaced = s3.headObject(b -> b.bucket(bucket).key("k"));
        assertThat(replaced.cacheControl()).isEqualTo("no-store");
        assertThat(replaced.contentLanguage()).isNull();
        assertThat(replaced.contentEncoding()).isNull();
    }

    @Test
    void shouldKeepContentHeadersOfAMultipartUpload() {
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("mp").cacheControl("max-age=5")
                .contentDisposition("inline").contentType("application/x-kv")).uploadId();
        String etag = s3.uploadPart(b -> b.bucket(bucket).key("mp").uploadId(uploadId).partNumber(1),
                RequestBody.fromBytes(BODY)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("mp").uploadId(uploadId)
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("mp"));
        assertThat(head.cacheControl()).isEqualTo("max-age=5");
        assertThat(head.contentDisposition()).isEqualTo("inline");
        assertThat(head.contentType()).isEqualTo("application/x-kv");
    }

    @Test
    void shouldOverrideResponseHeadersOnRequest() throws Exception {
        s3.putObject(b -> b.bucket(bucket).key("k").cacheControl("max-age=60"), RequestBody.fromBytes(BODY));
        ResponseBytes<GetObjectResponse> get = s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")
                .responseContentType("text/plain").responseContentDisposition("attachment; filename=a.txt")
                .responseCacheControl("no-cache").responseContentLanguage("de").responseContentEncoding("identity")
                .responseExpires(EXPIRES));
        assertThat(get.asByteArray()).isEqualTo(BODY);
        assertThat(get.response().contentType()).isEqualTo("text/plain");
        assertThat(get.response().contentDisposition()).isEqualTo("attachment; filename=a.txt");
        assertThat(get.response().cacheControl()).isEqualTo("no-cache");
        assertThat(get.response().contentLanguage()).isEqualTo("de");
        assertThat(get.response().contentEncoding()).isEqualTo("identity");
        assertThat(instant(get.response().expiresString())).isEqualTo(EXPIRES);
        // an override S3 does not define is refused, not ignored
        HttpURLConnection c = (HttpURLConnection) URI.create(endpoint + bucket + "/k?response-content-md5=x")
                .toURL().openConnection();
        assertThat(c.getResponseCode()).isEqualTo(501);
        c.disconnect();
    }

    @Test
    void shouldReturnTheNodesOwnChecksumOfAnObjectSentWithoutOne() {
        // a client that sends no checksum (the SDK's defaults send one: ClientChecksumTest)
        try (S3Client plain = SdkClients.sync(endpoint, RequestChecksumCalculation.WHEN_REQUIRED)) {
            plain.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(BODY));
        }
        CRC32C crc = new CRC32C();
        crc.update(BODY);
        String expected = S3Headers.base64Crc((int) crc.getValue());

        // GET and HEAD with checksum mode: the CRC32C of the whole body (the SDK also validates it on GET)
        GetObjectResponse get = s3.getObjectAsBytes(b -> b.bucket(bucket).key("k").checksumMode(ChecksumMode.ENABLED))
                .response();
        assertThat(get.checksumCRC32C()).isEqualTo(expected);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("k").checksumMode(ChecksumMode.ENABLED))
                .checksumCRC32C()).isEqualTo(expected);
        // not without it, and not for a range (it would not be the range's)
        assertThat(s3.headObject(b -> b.bucket(bucket).key("k")).checksumCRC32C()).isNull();
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k").range("bytes=0-3")
                .checksumMode(ChecksumMode.ENABLED)).response().checksumCRC32C()).isNull();
    }

    @Test
    void shouldAcceptCrc64NvmeUploads() {
        // the SDK computes CRC64NVME (with the CRT) and the node verifies it
        s3.putObject(b -> b.bucket(bucket).key("k").checksumAlgorithm(ChecksumAlgorithm.CRC64_NVME),
                RequestBody.fromBytes(BODY));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asByteArray()).isEqualTo(BODY);

        var created = s3.createMultipartUpload(b -> b.bucket(bucket).key("mp")
                .checksumAlgorithm(ChecksumAlgorithm.CRC64_NVME));
        assertThat(created.checksumAlgorithm()).isEqualTo(ChecksumAlgorithm.CRC64_NVME);
        String etag = s3.uploadPart(b -> b.bucket(bucket).key("mp").uploadId(created.uploadId()).partNumber(1)
                .checksumAlgorithm(ChecksumAlgorithm.CRC64_NVME), RequestBody.fromBytes(BODY)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("mp").uploadId(created.uploadId())
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(etag).build())));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("mp")).asByteArray()).isEqualTo(BODY);
    }

    private static Instant instant(String httpDate) {
        return ZonedDateTime.parse(httpDate, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
    }
}
