package io.promptcache.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.netty.handler.ssl.OpenSsl;
import io.promptcache.devservices.launcher.TlsMaterial;
import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.config.TlsEngine;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node serves HTTPS with BoringSSL by default (promptcache.storage.tls.engine=openssl): its native library loads
 * from the node's own dependencies on this platform, the listener is given it, and a client that trusts the node's
 * CA completes a TLS 1.3 handshake and gets its answer over it. A body read from its file is sent over TLS in windows
 * (no sendfile under TLS): whole and in part, byte for byte.
 */
@QuarkusTest
@TestProfile(TlsEngineTest.Https.class)
class TlsEngineTest {

    /** Where the profile writes the stores (the profile and the test may live in different class loaders). */
    private static final Path DIR = Path.of("target", "tls-engine-test");

    private static final int MIB = 1 << 20;

    @TestHTTPResource(value = "/q/health/live", tls = true)
    URL live;

    @Inject
    TlsEngine engine;

    @Test
    void shouldServeHttpsWithBoringSsl() throws Exception {
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative's BoringSSL loads: %s", OpenSsl.unavailabilityCause())
                .isTrue();
        assertThat(engine.chosen()).isEqualTo(StorageConfig.TlsEngineKind.OPENSSL);

        HttpClient client = HttpClient.newBuilder().sslContext(TlsMaterial.trusting(DIR.resolve("ca.pem")))
                .build();
        HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(live.toString())).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.uri().getScheme()).isEqualTo("https");
        assertThat(answer.sslSession()).hasValueSatisfying(s -> assertThat(s.getProtocol()).isEqualTo("TLSv1.3"));
    }

    @Test
    void shouldSendBodyFilesOverTlsByteForByte() throws Exception {
        HttpClient client = HttpClient.newBuilder().sslContext(TlsMaterial.trusting(DIR.resolve("ca.pem")))
                .build();
        URI bucket = live.toURI().resolve("/tls-bodies");
        URI key = live.toURI().resolve("/tls-bodies/big");
        byte[] body = new byte[24 * MIB + 12_345]; // bodies of more than the RAM tier's 1 MiB are read from files
        new Random(67).nextBytes(body);
        assertThat(client.send(HttpRequest.newBuilder(bucket).PUT(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);
        assertThat(client.send(HttpRequest.newBuilder(key).PUT(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(200);

        HttpResponse<byte[]> whole = client.send(HttpRequest.newBuilder(key).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertThat(whole.statusCode()).isEqualTo(200);
        assertThat(whole.body()).isEqualTo(body);
        // a range longer than what a check keeps in memory (4 MiB), starting and ending inside windows
        long first = 100_001;
        long last = 20L * MIB + 77;
        HttpResponse<byte[]> part = client.send(HttpRequest.newBuilder(key).header("Range", "bytes=" + first + "-"
                + last).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(part.statusCode()).isEqualTo(206);
        assertThat(part.body()).isEqualTo(Arrays.copyOfRange(body, (int) first, (int) last + 1));
    }

    /** An HTTPS listener on a random port with a throwaway CA's certificate (the plain one stays for the harness). */
    public static class Https implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            // made once: Quarkus asks a profile for its settings more than once, and a new store each time would
            // leave the file of one call with the password of another (a store older than a day is made again)
            Path dir = DIR.toAbsolutePath();
            Path password = dir.resolve("password");
            try {
                if (!Files.exists(password) || Files.getLastModifiedTime(password).toMillis() < System
                        .currentTimeMillis() - Duration.ofDays(1).toMillis()) {
                    TlsMaterial tls = TlsMaterial.create(dir);
                    Files.writeString(password, tls.password());
                }
                return Map.of("quarkus.tls.key-store.p12.path", dir.resolve("server.p12").toString(),
                        "quarkus.tls.key-store.p12.password", Files.readString(password),
                        "quarkus.http.test-ssl-port", "0",
                        "promptcache.storage.tier.ram-capacity-bytes", Integer.toString(MIB));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
