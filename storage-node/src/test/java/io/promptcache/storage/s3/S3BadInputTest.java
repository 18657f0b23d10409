package io.promptcache.storage.s3;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.UUID;
import java.util.stream.Stream;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Bad input gets a clear S3 error and leaves nothing half-written. Exact bytes over a real socket. */
@QuarkusTest
class S3BadInputTest {

    @TestHTTPResource("/")
    URL endpoint;

    private String bucket;

    @BeforeEach
    void createBucket() throws Exception {
        bucket = "bad-" + UUID.randomUUID();
        assertThat(RawHttp.send(endpoint, "PUT /" + bucket + " HTTP/1.1\r\nContent-Length: 0\r\n").status())
                .isEqualTo(200);
    }

    @Test
    void shouldRefuseAWrongContentMd5AndStoreNothing() throws Exception {
        byte[] body = "payload".getBytes(StandardCharsets.UTF_8);
        String wrongMd5 = Base64.getEncoder().encodeToString(new byte[16]);
        RawHttp.Response put = put("k", "Content-MD5: " + wrongMd5 + "\r\n", body);
        assertError(put, 400, "BadDigest");
        assertError(get("k"), 404, "NoSuchKey");
        assertError(put("k", "Content-MD5: not-base64!\r\n", body), 400, "InvalidDigest");
    }

    @Test
    void shouldRefuseAWrongChecksumHeader() throws Exception {
        RawHttp.Response put = put("k", "x-amz-checksum-crc32: AAAAAA==\r\n",
                "hello world".getBytes(StandardCharsets.UTF_8));
        assertError(put, 400, "BadDigest");
        assertThat(put.body()).contains("CRC32");
        RawHttp.Response crc64 = put("k", "x-amz-checksum-crc64nvme: AAAAAAAAAAA=\r\n", new byte[1]);
        assertError(crc64, 400, "BadDigest");
        assertThat(crc64.body()).contains("CRC64NVME");
        assertError(put("k", "x-amz-checksum-crc16: AAAA\r\n", new byte[1]), 400, "InvalidArgument");
        assertError(get("k"), 404, "NoSuchKey");
    }

    @Test
    void shouldStoreAsSentABodyWhoseClientSaysAwsChunkedWithoutFramingIt() throws Exception {
        // a client's own Content-Encoding: aws-chunked on a body that is not framed: no STREAMING-* payload hash and
        // no decoded length, so S3 stores the bytes as sent and drops aws-chunked from the stored encoding (issue 73:
        // the node decoded chunks that were not there and answered IncompleteBody)
        byte[] body = "hello world".getBytes(StandardCharsets.US_ASCII);
        assertThat(put("raw", "Content-Encoding: aws-chunked\r\n", body).status()).isEqualTo(200);
        assertThat(put("gz", "Content-Encoding: aws-chunked, gzip\r\nx-amz-content-sha256: UNSIGNED-PAYLOAD\r\n",
                body).status()).isEqualTo(200);
        RawHttp.Response raw = get("raw");
        assertThat(raw.body()).isEqualTo("hello world");
        assertThat(raw.headers()).doesNotContainKey("content-encoding");
        RawHttp.Response gz = get("gz");
        assertThat(gz.body()).isEqualTo("hello world");
        assertThat(gz.headers()).containsEntry("content-encoding", "gzip");
    }

    @Test
    void shouldRefuseTruncatedAndMalformedAwsChunkedBodies() throws Exception {
        String headers = "Content-Encoding: aws-chunked\r\nx-amz-content-sha256: STREAMING-UNSIGNED-PAYLOAD-TRAILER\r\n"
                + "x-amz-decoded-content-length: 11\r\nx-amz-trailer: x-amz-checksum-crc32\r\n";
        String good = "b\r\nhello world\r\n0\r\nx-amz-checksum-crc32:DUoRhQ==\r\n\r\n";
        assertThat(put("ok", headers, good.getBytes(StandardCharsets.US_ASCII)).status()).isEqualTo(200);
        assertThat(get("ok").body()).isEqualTo("hello world");
        // truncated: the connection ends before the final chunk
        assertError(put("cut", headers, "b\r\nhello world\r\n".getBytes(StandardCharsets.US_ASCII)), 400,
                "IncompleteBody");
        // malformed chunk size
        assertError(put("bad", headers, "zz\r\nhello world\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII)), 400,
                "InvalidArgument");
        // wrong trailing checksum
        assertError(put("sum", headers, good.replace("DUoRhQ==", "AAAAAA==").getBytes(StandardCharsets.US_ASCII)),
                400, "BadDigest");
        for (String key : new String[]{"cut", "bad", "sum"}) {
            assertError(get(key), 404, "NoSuchKey");
        }
    }

    @Test
    void shouldLeaveNothingWhenTheClientDiesMidBody() throws Exception {
        // When: 10 of 100 declared bytes, then the client goes away
        RawHttp.sendAndHangUp(endpoint, "PUT /" + bucket + "/short HTTP/1.1\r\nContent-Length: 100\r\n",
                new byte[10]);
        // Then: no object, and the partial body is removed
        Path tmp = ConfigProvider.getConfig().getValue("promptcache.storage.data-dir", Path.class).resolve("tmp");
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (Stream<Path> parts = Files.list(tmp)) {
                assertThat(parts).isEmpty();
            }
        });
        assertError(get("short"), 404, "NoSuchKey");
    }

    @Test
    void shouldTreatTraversalAndOddCharactersAsPlainKeys() throws Exception {
        String[] rawKeys = {"..%2F..%2Fetc%2Fpasswd", "../../etc/passwd", "a%20b%2Bc%25d", "%E6%97%A5%E6%9C%AC",
                "%2Fabsolute"};
        for (String raw : rawKeys) {
            byte[] body = raw.getBytes(StandardCharsets.UTF_8);
            assertThat(RawHttp.send(endpoint, "PUT /" + bucket + "/" + raw + " HTTP/1.1\r\nContent-Length: "
                    + body.length + "\r\n", body).status()).as(raw).isEqualTo(200);
            assertThat(RawHttp.send(endpoint, "GET /" + bucket + "/" + raw + " HTTP/1.1\r\n").body()).as(raw)
                    .isEqualTo(raw);
        }
        String listing = RawHttp.send(endpoint, "GET /" + bucket + "?list-type=2 HTTP/1.1\r\n").body();
        assertThat(listing).contains("<Key>../../etc/passwd</Key>", "<Key>a b+c%d</Key>", "<Key>日本</Key>",
                "<Key>/absolute</Key>");
        // a malformed percent-encoding is refused by the HTTP layer itself (plain 400, before any S3 handler)
        assertThat(RawHttp.send(endpoint, "GET /" + bucket + "/bad%zzkey HTTP/1.1\r\n").status()).isEqualTo(400);
    }

    @Test
    void shouldRefuseMultipleRangesAndUnsatisfiableOnes() throws Exception {
        assertThat(put("r", "", new byte[100]).status()).isEqualTo(200);
        assertError(RawHttp.send(endpoint, "GET /" + bucket + "/r HTTP/1.1\r\nRange: bytes=0-1,5-6\r\n"), 400,
                "InvalidArgument");
        RawHttp.Response unsatisfiable = RawHttp.send(endpoint,
                "GET /" + bucket + "/r HTTP/1.1\r\nRange: bytes=100-\r\n");
        assertError(unsatisfiable, 416, "InvalidRange");
        assertThat(unsatisfiable.headers()).containsEntry("content-range", "bytes */100");
        assertThat(RawHttp.send(endpoint, "GET /" + bucket + "/r HTTP/1.1\r\nRange: bytes=oops\r\n").status())
                .isEqualTo(200);
    }

    @Test
    void shouldRefuseBadBucketNamesAndUnknownListTypes() throws Exception {
        assertError(RawHttp.send(endpoint, "PUT /Bad_Bucket HTTP/1.1\r\nContent-Length: 0\r\n"), 400,
                "InvalidBucketName");
        assertError(RawHttp.send(endpoint, "GET /" + bucket + "?list-type=1 HTTP/1.1\r\n"), 400, "InvalidArgument");
        assertError(RawHttp.send(endpoint, "GET /" + bucket + "?list-type=2&max-keys=-1 HTTP/1.1\r\n"), 400,
                "InvalidArgument");
        assertError(RawHttp.send(endpoint, "PUT /" + bucket + " HTTP/1.1\r\nContent-Length: 0\r\n"), 409,
                "BucketAlreadyOwnedByYou");
    }

    @Test
    void shouldRefuseAnObjectLargerThanTheMaximumBeforeReadingIt() throws Exception {
        RawHttp.Response response = RawHttp.send(endpoint, "PUT /" + bucket + "/huge HTTP/1.1\r\n"
                + "Content-Length: 6000000000\r\n", new byte[100]);
        assertError(response, 400, "EntityTooLarge");
        assertError(get("huge"), 404, "NoSuchKey");
    }

    @Test
    void shouldRefuseOversizeHeadersAndMetadata() throws Exception {
        // Given: user metadata above S3's 2 KB, in headers the HTTP layer still accepts
        RawHttp.Response metadata = put("meta", "x-amz-meta-a: " + "v".repeat(1500) + "\r\nx-amz-meta-b: "
                + "w".repeat(1500) + "\r\n", new byte[10]);
        assertError(metadata, 400, "MetadataTooLarge");
        assertError(get("meta"), 404, "NoSuchKey");
        // a header section beyond the HTTP layer's 20 KiB limit is refused before any handler (431)
        RawHttp.Response huge = put("huge-header", "x-amz-meta-a: " + "v".repeat(30_000) + "\r\n", new byte[10]);
        assertThat(huge.status()).as(huge.body()).isEqualTo(431);
        assertError(get("huge-header"), 404, "NoSuchKey");
    }

    @Test
    void shouldRefuseMalformedDeleteXml() throws Exception {
        String[] bodies = {"<Delete><Object><Key>a</Key></Object>", "<NotDelete/>", "<Delete></Delete>",
                "<Delete><Object></Object></Delete>",
                "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                        + "<Delete><Object><Key>&x;</Key></Object></Delete>",
                "<Delete>" + "<Object><Key>k</Key></Object>".repeat(1001) + "</Delete>"};
        for (String xml : bodies) {
            byte[] body = xml.getBytes(StandardCharsets.UTF_8);
            RawHttp.Response response = RawHttp.send(endpoint, "POST /" + bucket + "?delete HTTP/1.1\r\n"
                    + "Content-Length: " + body.length + "\r\n", body);
            assertError(response, 400, "MalformedXML");
            assertThat(response.body()).doesNotContain("root:");
        }
    }

    private RawHttp.Response put(String key, String headers, byte[] body) throws Exception {
        return RawHttp.send(endpoint, "PUT /" + bucket + "/" + key + " HTTP/1.1\r\n" + headers + "Content-Length: "
                + body.length + "\r\n", body);
    }

    private RawHttp.Response get(String key) throws Exception {
        return RawHttp.send(endpoint, "GET /" + bucket + "/" + key + " HTTP/1.1\r\n");
    }

    private static void assertError(RawHttp.Response response, int status, String code) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.body()).contains("<Code>" + code + "</Code>", "<RequestId>").doesNotContain("at io.");
        assertThat(response.headers()).containsKey("x-amz-request-id");
    }
}
