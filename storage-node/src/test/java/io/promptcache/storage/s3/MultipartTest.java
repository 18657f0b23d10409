package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Multipart uploads through the real AWS SDK: the sync client part by part, and the CRT async client. */
@QuarkusTest
class MultipartTest extends SdkBucketFixture {

    private static final int MIB = 1 << 20;

    @Test
    void shouldCompleteAnUploadPartByPart() throws Exception {
        // Given: three parts, the second uploaded twice (the later one wins)
        byte[] p1 = S3SdkTest.bytes(5 * MIB, 1);
        byte[] p2 = S3SdkTest.bytes(5 * MIB, 2);
        byte[] p3 = S3SdkTest.bytes(MIB + 7, 3);
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("kv/big").contentType("application/x-kv"))
                .uploadId();
        String e1 = uploadPart("kv/big", id, 1, p1);
        uploadPart("kv/big", id, 2, S3SdkTest.bytes(5 * MIB, 99));
        String e2 = uploadPart("kv/big", id, 2, p2);
        String e3 = uploadPart("kv/big", id, 3, p3);
        assertThat(s3.listParts(b -> b.bucket(bucket).key("kv/big").uploadId(id)).parts())
                .extracting(p -> p.partNumber(), p -> p.eTag())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, e1), org.assertj.core.groups.Tuple.tuple(2,
                        e2), org.assertj.core.groups.Tuple.tuple(3, e3));
        // When
        String etag = s3.completeMultipartUpload(b -> b.bucket(bucket).key("kv/big").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, e1), part(2, e2), part(3, e3)))).eTag();
        // Then
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(p1);
        expected.write(p2);
        expected.write(p3);
        byte[] whole = expected.toByteArray();
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("kv/big")).asByteArray()).isEqualTo(whole);
        assertThat(etag).matches("\"[0-9a-f]{32}-3\"");
        assertThat(s3.headObject(b -> b.bucket(bucket).key("kv/big")).contentType()).isEqualTo("application/x-kv");
        byte[] acrossParts = s3.getObjectAsBytes(b -> b.bucket(bucket).key("kv/big")
                .range("bytes=" + (5 * MIB - 10) + "-" + (5 * MIB + 9))).asByteArray();
        assertThat(acrossParts).isEqualTo(Arrays.copyOfRange(whole, 5 * MIB - 10, 5 * MIB + 10));
        assertThatThrownBy(() -> s3.listParts(b -> b.bucket(bucket).key("kv/big").uploadId(id)))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchUpload"));
    }

    @Test
    void shouldKeepThePartWhoseUploadCompletedLastWhenTheFirstSendFinishesLast() throws Exception {
        // Given: the first send of part 1 begins (its head and half its body), then stalls
        byte[] first = S3SdkTest.bytes(5 * MIB, 11);
        byte[] resent = S3SdkTest.bytes(5 * MIB, 12);
        byte[] tail = S3SdkTest.bytes(1000, 13);
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("resent")).uploadId();
        String firstEtag;
        try (java.net.Socket slow = new java.net.Socket("127.0.0.1", endpoint.getPort())) {
            slow.setSoTimeout(30_000);
            java.io.OutputStream out = slow.getOutputStream();
            // signed with the test key (a node without auth ignores it), as the SDK signs
            software.amazon.awssdk.http.SdkHttpRequest request = software.amazon.awssdk.http.SdkHttpRequest.builder()
                    .method(software.amazon.awssdk.http.SdkHttpMethod.PUT).protocol("http").host("127.0.0.1")
                    .port(endpoint.getPort()).encodedPath("/" + bucket + "/resent").putRawQueryParameter("partNumber",
                            "1")
                    .putRawQueryParameter("uploadId", id)
                    .putHeader("Content-Length", Integer.toString(first.length)).build();
            String head = RawHttp.head(SdkClients.sign(request, first, r -> {
            }).request(), first);
            out.write((head + "Host: 127.0.0.1:" + endpoint.getPort() + "\r\nConnection: close\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.write(first, 0, first.length / 2);
            out.flush();

            // When: a re-send of part 1 completes meanwhile, then the first send finishes, last (issue 73)
            String resentEtag = uploadPart("resent", id, 1, resent);
            out.write(first, first.length / 2, first.length - first.length / 2);
            out.flush();
            String answer = new String(slow.getInputStream().readAllBytes(),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 200");
            java.util.regex.Matcher etag = java.util.regex.Pattern.compile("(?i)etag: (\"[0-9a-f]+\")")
                    .matcher(answer);
            assertThat(etag.find()).as(answer).isTrue();
            firstEtag = etag.group(1);
            assertThat(firstEtag).isNotEqualTo(resentEtag);
        }
        String tailEtag = uploadPart("resent", id, 2, tail);

        // Then: the upload holds part 1 once, the send that completed last; it completes with what ListParts says
        List<software.amazon.awssdk.services.s3.model.Part> parts = s3.listParts(b -> b.bucket(bucket)
                .key("resent").uploadId(id)).parts();
        assertThat(parts).extracting(p -> p.partNumber(), p -> p.eTag()).containsExactly(
                org.assertj.core.groups.Tuple.tuple(1, firstEtag), org.assertj.core.groups.Tuple.tuple(2, tailEtag));
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("resent").uploadId(id).multipartUpload(m -> m.parts(
                parts.stream().map(p -> part(p.partNumber(), p.eTag())).toList())));
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.write(first);
        expected.write(tail);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("resent")).asByteArray())
                .isEqualTo(expected.toByteArray());
    }

    @Test
    void shouldRefuseBadCompletionsAndAbort() {
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("k")).uploadId();
        String small = uploadPart("k", id, 1, S3SdkTest.bytes(1000, 4));
        String last = uploadPart("k", id, 2, S3SdkTest.bytes(1000, 5));
        assertCompletionFails(id, List.of(part(1, "\"0123456789abcdef0123456789abcdef\"")), "InvalidPart");
        assertCompletionFails(id, List.of(part(3, last)), "InvalidPart");
        assertCompletionFails(id, List.of(part(2, last), part(1, small)), "InvalidPartOrder");
        assertCompletionFails(id, List.of(part(1, small), part(2, last)), "EntityTooSmall");
        s3.abortMultipartUpload(b -> b.bucket(bucket).key("k").uploadId(id));
        assertCompletionFails(id, List.of(part(1, small)), "NoSuchUpload");
        assertThatThrownBy(() -> s3.listParts(b -> b.bucket(bucket).key("other-key").uploadId(id)))
                .satisfies(e -> assertThat(((S3Exception) e).statusCode()).isEqualTo(404));
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents()).isEmpty();
    }

    @Test
    void shouldTakeA64MiBUploadFromTheCrtAsyncClient() throws Exception {
        byte[] body = S3SdkTest.bytes(64 * MIB, 6);
        try (S3AsyncClient crt = S3AsyncClient.crtBuilder().endpointOverride(URI.create(endpoint.toString()))
                .forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(SdkClients.CREDENTIALS).minimumPartSizeInBytes(8L * MIB).build()) {
            crt.putObject(b -> b.bucket(bucket).key("kv/64m"), AsyncRequestBody.fromBytes(body))
                    .get(120, TimeUnit.SECONDS);
            byte[] back = crt.getObject(b -> b.bucket(bucket).key("kv/64m"), AsyncResponseTransformer.toBytes())
                    .get(120, TimeUnit.SECONDS).asByteArray();
            assertThat(S3SdkTest.md5Hex(back)).isEqualTo(S3SdkTest.md5Hex(body));
        }
        assertThat(s3.headObject(b -> b.bucket(bucket).key("kv/64m")).eTag()).as("a multipart ETag")
                .matches("\"[0-9a-f]{32}-8\"");
    }

    @Test
    void shouldAnswerARetriedCompletionAsTheFirstUntilTheObjectIsReplaced() {
        // Given: an upload completed once (the client lost the answer)
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("retried")).uploadId();
        byte[] first = S3SdkTest.bytes(5 * MIB, 11);
        String e1 = uploadPart("retried", id, 1, first);
        String e2 = uploadPart("retried", id, 2, S3SdkTest.bytes(1000, 12));
        String etag = s3.completeMultipartUpload(b -> b.bucket(bucket).key("retried").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, e1), part(2, e2)))).eTag();
        // When: it retries; Then: the same answer, and the object unchanged
        assertThat(s3.completeMultipartUpload(b -> b.bucket(bucket).key("retried").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, e1), part(2, e2)))).eTag()).isEqualTo(etag);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("retried")).eTag()).isEqualTo(etag);
        // the upload is gone all the same: no parts to list, and another key never answers for it
        assertThatThrownBy(() -> s3.listParts(b -> b.bucket(bucket).key("retried").uploadId(id)))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchUpload"));
        assertThatThrownBy(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("other").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, e1), part(2, e2)))))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchUpload"));
        // When: the key is written again; Then: the retry no longer answers for an object it did not make
        s3.putObject(b -> b.bucket(bucket).key("retried"), RequestBody.fromBytes(new byte[]{1}));
        assertThatThrownBy(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("retried").uploadId(id)
                .multipartUpload(m -> m.parts(part(1, e1), part(2, e2)))))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode())
                        .isEqualTo("NoSuchUpload"));
    }

    private void assertCompletionFails(String id, List<CompletedPart> parts, String code) {
        assertThatThrownBy(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key("k").uploadId(id)
                .multipartUpload(m -> m.parts(parts))))
                .satisfies(e -> assertThat(((S3Exception) e).awsErrorDetails().errorCode()).isEqualTo(code));
    }

    private String uploadPart(String key, String id, int number, byte[] bytes) {
        return s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(number),
                RequestBody.fromBytes(bytes)).eTag();
    }

    private static CompletedPart part(int number, String etag) {
        return CompletedPart.builder().partNumber(number).eTag(etag).build();
    }
}
