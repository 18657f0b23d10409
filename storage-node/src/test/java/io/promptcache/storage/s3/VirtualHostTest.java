package io.promptcache.storage.s3;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Virtual-hosted-style requests ({@code Host: <bucket>.<domain>}) on a node configured for the domain, SigV4 on:
 * requests signed by the SDK's own signer for a virtual host and URLs from the SDK's presigner in virtual-hosted mode,
 * sent to the node with that Host (no resolver here knows the domain); path style unchanged beside it.
 */
@QuarkusTest
@TestProfile(VirtualHostTest.Profile.class)
class VirtualHostTest extends SdkBucketFixture {

    static final String DOMAIN = "s3.promptcache.test";

    /** SigV4 and one virtual-host domain. */
    public static class Profile extends SigV4Profile {

        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> config = new HashMap<>(super.getConfigOverrides());
            config.put("promptcache.storage.virtual-host-domains", DOMAIN);
            return config;
        }
    }

    private String host() {
        return bucket + "." + DOMAIN + ":" + endpoint.getPort();
    }

    @Test
    void shouldServeTheBucketNamedByTheHost() throws IOException {
        // Given: an object put in virtual-hosted style, signed for that host
        byte[] body = "virtually hosted".getBytes(StandardCharsets.UTF_8);
        RawHttp.Response put = send(SdkHttpMethod.PUT, "/dir/kv%201", "", body);
        assertThat(put.status()).as(put.body()).isEqualTo(200);
        // Then: path style sees it in the same bucket, and virtual-hosted GETs and listings do too
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("dir/kv 1")).asByteArray()).isEqualTo(body);
        RawHttp.Response get = send(SdkHttpMethod.GET, "/dir/kv%201", "", null);
        assertThat(get.status()).as(get.body()).isEqualTo(200);
        assertThat(get.body()).isEqualTo("virtually hosted");
        RawHttp.Response list = send(SdkHttpMethod.GET, "/", "list-type=2", null);
        assertThat(list.status()).as(list.body()).isEqualTo(200);
        assertThat(list.body()).contains("<Name>" + bucket + "</Name>").contains("<Key>dir/kv 1</Key>");
    }

    @Test
    void shouldServeTheSdksPresignedVirtualHostedUrls() throws Exception {
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("presigned, virtually"));
        try (S3Presigner presigner = S3Presigner.builder()
                .endpointOverride(URI.create("http://" + DOMAIN + ":" + endpoint.getPort()))
                .region(Region.US_EAST_1).credentialsProvider(SdkClients.CREDENTIALS).build()) {
            URI url = presigner.presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                    .getObjectRequest(g -> g.bucket(bucket).key("k"))).url().toURI();
            assertThat(url.getHost()).isEqualTo(bucket + "." + DOMAIN);
            RawHttp.Response got = RawHttp.sendAs(endpoint, url.getHost() + ":" + url.getPort(),
                    "GET " + url.getRawPath() + "?" + url.getRawQuery() + " HTTP/1.1\r\n", null);
            assertThat(got.status()).as(got.body()).isEqualTo(200);
            assertThat(got.body()).isEqualTo("presigned, virtually");
            // the host is signed: the same URL for another bucket's host is refused
            RawHttp.Response other = RawHttp.sendAs(endpoint, "other-" + bucket + "." + DOMAIN + ":"
                    + url.getPort(), "GET " + url.getRawPath() + "?" + url.getRawQuery() + " HTTP/1.1\r\n", null);
            assertThat(other.status()).isEqualTo(403);
            assertThat(other.body()).contains("SignatureDoesNotMatch");
        }
    }

    @Test
    void shouldTreatOtherHostsAndTheDomainItselfAsPathStyle() throws IOException {
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("path style"));
        RawHttp.Response onDomain = RawHttp.sendAs(endpoint, DOMAIN + ":" + endpoint.getPort(), signedHead(
                DOMAIN, "/" + bucket + "/k"), null);
        assertThat(onDomain.status()).as(onDomain.body()).isEqualTo(200);
        assertThat(onDomain.body()).isEqualTo("path style");
        RawHttp.Response elsewhere = RawHttp.sendAs(endpoint, bucket + ".example.org:" + endpoint.getPort(),
                signedHead(bucket + ".example.org", "/" + bucket + "/k"), null);
        assertThat(elsewhere.status()).as(elsewhere.body()).isEqualTo(200);
        assertThat(elsewhere.body()).isEqualTo("path style");
    }

    /** A request for this test's bucket host, signed by the SDK's SigV4 signer, sent with that Host. */
    private RawHttp.Response send(SdkHttpMethod method, String rawPath, String rawQuery, byte[] body)
            throws IOException {
        SdkHttpRequest signed = sign(method, bucket + "." + DOMAIN, rawPath, rawQuery, body);
        return RawHttp.sendAs(endpoint, host(), RawHttp.head(signed, body), body);
    }

    private String signedHead(String hostName, String rawPath) {
        return RawHttp.head(sign(SdkHttpMethod.GET, hostName, rawPath, "", null), null);
    }

    private SdkHttpRequest sign(SdkHttpMethod method, String hostName, String rawPath, String rawQuery,
            byte[] body) {
        SdkHttpRequest.Builder request = SdkHttpRequest.builder().method(method).protocol("http").host(hostName)
                .port(endpoint.getPort()).encodedPath(rawPath);
        if (!rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                request.appendRawQueryParameter(eq < 0 ? pair : pair.substring(0, eq),
                        eq < 0 ? null : pair.substring(eq + 1));
            }
        }
        if (body != null) {
            request.putHeader("Content-Length", Integer.toString(body.length));
        }
        return SdkClients.sign(request.build(), body, r -> {
        }).request();
    }
}
