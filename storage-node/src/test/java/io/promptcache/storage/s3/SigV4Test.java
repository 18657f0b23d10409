package io.promptcache.storage.s3;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignerProperty;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * SigV4 on a real socket: good and bad keys through the SDK, presigned URLs (and their expiry) from the SDK's
 * presigner, and requests signed by the SDK's own signer and then altered (clock skew, body, chunk data).
 */
@QuarkusTest
@TestProfile(SigV4Profile.class)
class SigV4Test extends SdkBucketFixture {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void shouldRefuseUnsignedRequestsUnknownKeysAndWrongSecrets() throws Exception {
        HttpResponse<String> anonymous = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint + bucket)).GET()
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(403);
        assertThat(anonymous.body()).contains("<Code>AccessDenied</Code>").contains("Signature Version 4");
        assertSdkError(client("nobody", "test"), "InvalidAccessKeyId", 403);
        assertSdkError(client("test", "wrong-secret"), "SignatureDoesNotMatch", 403);
        S3Client second = client("AKIDSECOND", "second-secret");
        second.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("from the second key"));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String())
                .isEqualTo("from the second key");
    }

    @Test
    void shouldServePresignedGetsAndPutsUntilTheyExpire() throws Exception {
        s3.putObject(b -> b.bucket(bucket).key("dir/kv 1+2"), RequestBody.fromString("presigned bytes"));
        try (S3Presigner presigner = S3Presigner.builder().endpointOverride(URI.create(endpoint.toString()))
                .region(Region.US_EAST_1).credentialsProvider(SdkClients.CREDENTIALS)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build()) {
            URI get = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                    .getObjectRequest(g -> g.bucket(bucket).key("dir/kv 1+2").range("bytes=10-14"))).url().toURI();
            HttpResponse<String> got = HTTP.send(HttpRequest.newBuilder(get).header("Range", "bytes=10-14").GET()
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(got.statusCode()).as(got.body().replace("\n", " ")).isEqualTo(206);
            assertThat(got.body()).isEqualTo("bytes");

            URI put = presigner.presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                    .putObjectRequest(r -> r.bucket(bucket).key("uploaded"))).url().toURI();
            HttpResponse<String> putResponse = HTTP.send(HttpRequest.newBuilder(put)
                    .PUT(HttpRequest.BodyPublishers.ofString("put by URL")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(putResponse.statusCode()).isEqualTo(200);
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("uploaded")).asUtf8String())
                    .isEqualTo("put by URL");

            URI otherKey = URI.create(get.toString().replace("/dir/", "/Dir/"));
            assertThat(HTTP.send(HttpRequest.newBuilder(otherKey).header("Range", "bytes=10-14").GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body()).contains("<Code>SignatureDoesNotMatch</Code>");
        }
        // signed two hours ago, valid for one
        SignedRequest expired = sign(SdkHttpMethod.GET, "/" + bucket + "/uploaded", null,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(-2)), Map.of(
                        AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING,
                        AwsV4FamilyHttpSigner.EXPIRATION_DURATION, Duration.ofHours(1)));
        HttpResponse<String> late = HTTP.send(HttpRequest.newBuilder(expired.request().getUri()).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(late.statusCode()).isEqualTo(403);
        assertThat(late.body()).contains("<Code>AccessDenied</Code>").contains("Request has expired");
    }

    @Test
    void shouldRefuseExpiredPresignedPutsAndExpiriesOutOfBounds() throws Exception {
        // Given: a presigned PUT signed two hours ago, valid for one
        byte[] body = "too late".getBytes(StandardCharsets.UTF_8);
        SignedRequest expired = sign(SdkHttpMethod.PUT, "/" + bucket + "/late", null,
                Clock.offset(Clock.systemUTC(), Duration.ofHours(-2)), Map.of(
                        AwsV4FamilyHttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING,
                        AwsV4FamilyHttpSigner.EXPIRATION_DURATION, Duration.ofHours(1),
                        AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false));
        URI url = expired.request().getUri();

        // Then: it is 403 AccessDenied and nothing is stored
        HttpResponse<String> late = HTTP.send(HttpRequest.newBuilder(url)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(late.statusCode()).isEqualTo(403);
        assertThat(late.body()).contains("<Code>AccessDenied</Code>", "Request has expired");
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("late")))
                .isInstanceOf(NoSuchKeyException.class);

        // an expiry outside 1 s .. 7 days is refused before anything else, as S3 does (400)
        for (String expires : new String[]{"0", "604801", "-5", "soon"}) {
            URI tampered = URI.create(url.toString().replaceFirst("X-Amz-Expires=\\d+", "X-Amz-Expires=" + expires));
            HttpResponse<String> refused = HTTP.send(HttpRequest.newBuilder(tampered)
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).as(expires).isEqualTo(400);
            assertThat(refused.body()).contains("<Code>AuthorizationQueryParametersError</Code>", "X-Amz-Expires");
        }
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("late")))
                .isInstanceOf(NoSuchKeyException.class);
    }

    @Test
    void shouldRefuseARequestSignedWithASkewedClock() throws Exception {
        SignedRequest skewed = sign(SdkHttpMethod.GET, "/" + bucket, null,
                Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-20)), Map.of());
        RawHttp.Response response = send(skewed, null);
        assertThat(response.status()).isEqualTo(403);
        assertThat(response.body()).contains("<Code>RequestTimeTooSkewed</Code>");
    }

    @Test
    void shouldRefuseABodyThatIsNotTheSignedOne() throws Exception {
        byte[] signedBody = "the bytes that were signed".getBytes(StandardCharsets.UTF_8);
        SignedRequest signed = sign(SdkHttpMethod.PUT, "/" + bucket + "/swapped", signedBody, Clock.systemUTC(),
                Map.of(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true));
        byte[] other = "the bytes that were sent!!".getBytes(StandardCharsets.UTF_8);
        RawHttp.Response response = send(signed, other);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("<Code>XAmzContentSHA256Mismatch</Code>");
        assertThat(send(sign(SdkHttpMethod.PUT, "/" + bucket + "/swapped", signedBody, Clock.systemUTC(),
                Map.of(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true)), signedBody).status()).isEqualTo(200);
    }

    @Test
    void shouldVerifyEveryChunkOfASignedStreamingUpload() throws Exception {
        byte[] payload = S3SdkTest.bytes(200_000, 7);
        SignedRequest signed = sign(SdkHttpMethod.PUT, "/" + bucket + "/chunked", payload, Clock.systemUTC(),
                Map.of(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true,
                        AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, true));
        assertThat(signed.request().firstMatchingHeader("x-amz-content-sha256"))
                .contains("STREAMING-AWS4-HMAC-SHA256-PAYLOAD");
        byte[] wire = signed.payload().orElseThrow().newStream().readAllBytes();
        // one byte of data in the second chunk flipped: that chunk's signature no longer holds
        byte[] tampered = wire.clone();
        int secondChunkData = indexOf(wire, "\r\n".getBytes(), indexOf(wire, ";chunk-signature=".getBytes(),
                indexOf(wire, ";chunk-signature=".getBytes(), 0) + 1)) + 2;
        tampered[secondChunkData + 100] ^= 1;
        RawHttp.Response refused = send(signed, tampered);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("<Code>SignatureDoesNotMatch</Code>").contains("chunk");
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("chunked")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
        // the untouched body is accepted
        assertThat(send(signed, wire).status()).isEqualTo(200);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("chunked")).asByteArray()).isEqualTo(payload);
    }

    @Test
    void shouldVerifyTheTrailerSignatureOfASignedStreamingUpload() throws Exception {
        byte[] payload = S3SdkTest.bytes(100_000, 8);
        SignedRequest signed = sign(SdkHttpMethod.PUT, "/" + bucket + "/trailer", payload, Clock.systemUTC(),
                Map.of(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, true,
                        AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, true,
                        AwsV4FamilyHttpSigner.CHECKSUM_ALGORITHM, DefaultChecksumAlgorithm.CRC32));
        assertThat(signed.request().firstMatchingHeader("x-amz-content-sha256"))
                .contains("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER");
        byte[] wire = signed.payload().orElseThrow().newStream().readAllBytes();
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int signatureAt = text.indexOf("x-amz-trailer-signature:") + "x-amz-trailer-signature:".length();
        assertThat(signatureAt).isGreaterThan(100_000);
        byte[] tampered = wire.clone();
        tampered[signatureAt] = (byte) (tampered[signatureAt] == 'a' ? 'b' : 'a');
        RawHttp.Response refused = send(signed, tampered);
        assertThat(refused.status()).isEqualTo(403);
        assertThat(refused.body()).contains("<Code>SignatureDoesNotMatch</Code>").contains("trailer");
        assertThat(send(signed, wire).status()).isEqualTo(200);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("trailer")).asByteArray()).isEqualTo(payload);
    }

    private S3Client client(String keyId, String secret) {
        return S3Client.builder().endpointOverride(URI.create(endpoint.toString())).forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(keyId, secret)))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    private void assertSdkError(S3Client client, String code, int status) {
        try (client) {
            assertThatThrownBy(() -> client.listObjectsV2(b -> b.bucket(bucket)))
                    .isInstanceOfSatisfying(S3Exception.class, e -> {
                        assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
                        assertThat(e.statusCode()).isEqualTo(status);
                    });
        }
    }

    /** A request signed by the SDK's own SigV4 signer, at the given clock, with extra signer properties. */
    private SignedRequest sign(SdkHttpMethod method, String path, byte[] body, Clock clock,
            Map<SignerProperty<?>, ?> properties) {
        SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(method).protocol("http").host("127.0.0.1")
                .port(endpoint.getPort()).encodedPath(path);
        if (body != null) {
            request.putHeader("Content-Length", Integer.toString(body.length));
        }
        return SdkClients.sign(request.build(), body, r -> {
            r.putProperty(HttpSigner.SIGNING_CLOCK, clock);
            properties.forEach((k, v) -> putProperty(r, k, v));
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> void putProperty(SignRequest.Builder<?> r,
            SignerProperty<?> key, Object value) {
        r.putProperty((SignerProperty<T>) key, (T) value);
    }

    /** Sends the signed request's method, path and headers with {@code body} on a raw socket. */
    private RawHttp.Response send(SignedRequest signed, byte[] body) throws IOException {
        return RawHttp.send(endpoint, RawHttp.head(signed.request(), body), body);
    }

    private static int indexOf(byte[] haystack, byte[] needle, int from) {
        outer : for (int i = from; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }
}
