package io.promptcache.schema.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import io.promptcache.devservices.launcher.TlsMaterial;
import io.promptcache.schema.secret.SigV4;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The requests services send to promptcache's own nodes without the AWS SDK ({@link OwnNodeHttp}), against a local
 * HTTPS server: an https node is verified with the trust it is given (the S3 client's, {@link NodeTrust}) and
 * refused with the JVM's default; a bodiless PUT goes path-style with {@code Content-Length: 0} and every header it
 * sends signed; a refusal's S3 error code is read; a signed request must name its payload hash.
 */
class OwnNodeHttpTest {

    /** One CA and server key pair for every test (seven keytool runs make one). */
    @TempDir
    static Path dir;

    private static TlsMaterial tls;
    private HttpsServer server;
    private final List<HttpExchange> seen = new CopyOnWriteArrayList<>();
    private final List<Map<String, List<String>>> headers = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void material() {
        tls = TlsMaterial.create(dir.resolve("node"));
    }

    @BeforeEach
    void start() throws Exception {
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(ServerTls.context(tls)));
        server.createContext("/", exchange -> {
            seen.add(exchange);
            headers.add(Map.copyOf(exchange.getRequestHeaders()));
            try (InputStream in = exchange.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            if (exchange.getRequestURI().getRawPath().endsWith("/missing")) {
                byte[] error = "<Error><Code>NoSuchKey</Code><Message>gone</Message></Error>"
                        .getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(404, error.length);
                exchange.getResponseBody().write(error);
            } else {
                exchange.sendResponseHeaders(200, -1);
            }
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void shouldSendASignedBodilessPutToAnHttpsNodeItTrusts() throws IOException {
        // Given: a signer, and the node's CA as the S3 client's trust store
        OwnNodeHttp http = new OwnNodeHttp(Optional.of(new SigningDay(() -> new StorageKey("key-id", "secret-0123"),
                "us-east-1", Clock.systemUTC())), transport(NodeTrust.context(trustStore())));

        // When
        OwnNodeHttp.Answer answer = http.call("PUT", endpoint(), "bucket", "ns/a b", Map.of("x-amz-copy-source",
                "bucket/ns/a%20b"));

        // Then: path-style, encoded the AWS way, an empty body, and every header it sent signed (host too)
        assertThat(answer.ok()).isTrue();
        HttpExchange request = seen.get(0);
        assertThat(request.getRequestMethod()).isEqualTo("PUT");
        assertThat(request.getRequestURI().getRawPath()).isEqualTo("/bucket/ns/a%20b");
        Map<String, List<String>> sent = headers.get(0);
        assertThat(sent.get("Content-length")).containsExactly("0");
        String authorization = sent.get("Authorization").get(0);
        assertThat(authorization).startsWith(SigV4.ALGORITHM + " Credential=key-id/")
                .contains("SignedHeaders=host;x-amz-content-sha256;x-amz-copy-source;x-amz-date, Signature=");
        assertThat(sent.get("X-amz-date")).hasSize(1);
        assertThat(sent.get("X-amz-content-sha256")).as("a bodiless call's payload")
                .containsExactly(SigV4.EMPTY_SHA256);
    }

    @Test
    void shouldRefuseANodeItsTrustDoesNotCoverAndReadARefusalsCode() throws Exception {
        OwnNodeHttp jvmTrust = new OwnNodeHttp(Optional.empty(), transport(SSLContext.getDefault()));
        assertThatThrownBy(() -> jvmTrust.call("DELETE", endpoint(), "bucket", "k", Map.of()))
                .isInstanceOf(SSLHandshakeException.class);
        assertThat(seen).isEmpty();

        OwnNodeHttp unsigned = new OwnNodeHttp(Optional.empty(), transport(NodeTrust.context(trustStore())));
        OwnNodeHttp.Answer answer = unsigned.call("DELETE", endpoint(), "bucket", "missing", Map.of());
        assertThat(answer.status()).isEqualTo(404);
        assertThat(answer.errorCode()).isEqualTo("NoSuchKey");
        assertThat(headers.get(0)).doesNotContainKey("Authorization");
    }

    @Test
    void shouldRefuseToSignARequestThatDoesNotNameItsPayloadHash() throws Exception {
        OwnNodeHttp http = new OwnNodeHttp(Optional.of(new SigningDay(() -> new StorageKey("key-id", "secret-0123"),
                "us-east-1", Clock.systemUTC())), transport(NodeTrust.context(trustStore())));
        assertThatThrownBy(() -> http.open("DELETE", endpoint(), "bucket", "k", Map.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("x-amz-content-sha256");
        assertThat(seen).isEmpty();
    }

    private String endpoint() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    private NodeTrust.Settings trustStore() {
        Map<String, String> settings = Map.of(NodeTrust.PROVIDER + "type", "file-store",
                NodeTrust.PROVIDER + "file-store.path", tls.trustStore().toString(),
                NodeTrust.PROVIDER + "file-store.password", tls.password());
        return name -> Optional.ofNullable(settings.get(name));
    }

    private static OwnNodeHttp.Transport transport(SSLContext trust) {
        return new OwnNodeHttp.Transport(trust.getSocketFactory(), Duration.ofSeconds(2), Duration.ofSeconds(10));
    }
}
