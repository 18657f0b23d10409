package io.promptcache.stack;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

import io.promptcache.devservices.launcher.TlsMaterial;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code up --tls} (issue 36): every service serves HTTPS only, with a throwaway CA made at start. The index stores
 * through its nodes over verified HTTPS (the S3 client trusts the CA), lookups hand out https presigned URLs, and a
 * 15 s bench over them has no error; a client that trusts other CAs, or the JVM's, is refused at the handshake, and
 * nothing answers plain HTTP.
 */
class TlsStackIT {

    @TempDir
    Path work;

    @Test
    void shouldServeABenchOverHttpsAndRefuseClientsThatDoNotTrustItsCa() throws Exception {
        // Given: the stack over TLS, SigV4 on the node, an API key on the index
        Path home = Path.of("..").toAbsolutePath().normalize();
        StackSpec spec = new StackSpec(home, null, 1, 1, 1, 0, 0, 0, 256L << 20, null, Map.of(), Map.of(),
                Map.of(), true, Secrets.random(24)).withTls();
        SSLContext jvmDefault = SSLContext.getDefault();
        try (Stack stack = Stack.start(spec)) {
            StackInfo info = stack.info();
            List<String> services = new ArrayList<>(info.index());
            info.nodes().forEach(n -> services.add(n.url()));
            services.add(info.gc());
            assertThat(services).allSatisfy(url -> assertThat(url).startsWith("https://127.0.0.1:"));
            assertThat(info.caFile()).isNotNull();

            // Then: no secret on a command line, which every user of the machine reads (the key stores' password
            // and the API key reach the services in files only their user reads); none left in the logs' directory
            assertThat(stack.processes()).allSatisfy(p -> assertThat(p.info().commandLine()).isPresent()
                    .get().asString().contains("java").doesNotContainIgnoringCase("password")
                    .doesNotContain(spec.apiKey()));
            try (var files = Files.list(Path.of(info.logsDir()))) {
                assertThat(files.map(f -> f.getFileName().toString())).noneMatch(f -> f.endsWith(".properties"));
            }

            // Then: refused by a client trusting another CA, by one trusting the JVM's CAs; no plain HTTP anywhere
            HttpClient otherCa = client(TlsMaterial.create(work.resolve("other-ca")).clientContext());
            HttpClient jvmCas = client(jvmDefault);
            HttpClient trusting = client(TlsMaterial.trusting(Path.of(info.caFile())));
            for (String service : services) {
                assertThatThrownBy(() -> get(otherCa, service)).as(service).isInstanceOf(SSLHandshakeException.class);
                assertThatThrownBy(() -> get(jvmCas, service)).as(service).isInstanceOf(SSLHandshakeException.class);
                String plain = service.replace("https://", "http://");
                assertThatThrownBy(() -> get(trusting, plain)).as(plain).isInstanceOf(IOException.class);
                assertThat(get(trusting, service).statusCode()).as(service).isEqualTo(200);
            }

            // When: a 15 s bench through the public APIs, trusting the stack's CA (read from the stack file)
            Path stackFile = work.resolve("stack.json");
            info.write(stackFile);
            ShortBench bench = ShortBench.run(stackFile, work.resolve("report"), "15s");

            // Then: hits (range GETs at https presigned URLs: the node has no other listener), no error
            JsonNode result = bench.result();
            assertThat(bench.exit()).as(bench.console()).isZero();
            assertThat(result.get("requests").asLong()).isPositive();
            assertThat(result.get("blockHitRatio").asDouble()).as(bench.console()).isGreaterThan(0);
            assertThat(result.get("errors").size()).as(bench.console()).isZero();
        } finally {
            SSLContext.setDefault(jvmDefault);
        }
    }

    private static HttpClient client(SSLContext trust) {
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(trust)
                .connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static HttpResponse<Void> get(HttpClient client, String service) throws IOException,
            InterruptedException {
        return client.send(HttpRequest.newBuilder(URI.create(service + "/q/health/live"))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding());
    }
}
