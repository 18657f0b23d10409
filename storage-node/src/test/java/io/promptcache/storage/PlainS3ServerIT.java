package io.promptcache.storage;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged node started in prod mode with no Kafka configuration at all is a plain S3 server: it starts, serves
 * PUT and GET, reports ready, and says once that heartbeats are off (it once failed to start: "No resolvable
 * bootstrap urls"). Its own authentication default is SigV4: without a key it refuses to start and says how to set
 * one; with one it refuses unsigned requests.
 */
class PlainS3ServerIT {

    @TempDir
    Path data;

    private PackagedNode node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void shouldServeS3WithoutAnyKafkaConfiguration() throws Exception {
        // Given: the packaged node without kafka.bootstrap.servers
        node = new PackagedNode(data, null);
        node.start();

        // When: a bucket and an object are written and read back
        assertThat(request("PUT", "/plain", "")).isEqualTo(200);
        assertThat(request("PUT", "/plain/k", "bytes")).isEqualTo(200);

        // Then: the object is served, and the log says once that heartbeats are off
        assertThat(new String(node.get("/plain/k"), StandardCharsets.UTF_8)).isEqualTo("bytes");
        List<String> warnings = Files.readAllLines(node.log()).stream()
                .filter(line -> line.contains("publishes no heartbeats")).toList();
        assertThat(warnings).hasSize(1);
        assertThat(warnings.get(0)).contains("WARN", "kafka.bootstrap.servers is unset");
    }

    @Test
    void shouldRefuseToStartWithoutAKeyWhenAuthenticationIsLeftAtItsDefault() throws Exception {
        // Given: the packaged node, nothing said about authentication, no key
        node = new PackagedNode(data, null);

        // When
        int exit = node.exitCodeWithDefaultAuth(Duration.ofSeconds(90));

        // Then: it stops at start, and its log says what to set
        assertThat(exit).as("exit code; log:\n" + Files.readString(node.log())).isNotIn(0, -1);
        assertThat(Files.readString(node.log())).contains("promptcache.storage.auth.mode=sigv4 (the default) needs at "
                + "least one key", "promptcache.storage.auth.mode=none");
    }

    @Test
    void shouldRefuseUnsignedRequestsWhenAuthenticationIsLeftAtItsDefault() throws Exception {
        // Given: the packaged node with a key and nothing else said about authentication
        node = new PackagedNode(data, null).with(Map.of("promptcache.storage.auth.credentials.AKIADEFAULT",
                "default-mode-secret"));
        node.startWithDefaultAuth();

        // When / Then: an unsigned PUT and GET are refused
        assertThat(request("PUT", "/plain", "")).isEqualTo(403);
        assertThat(node.get("/plain/k")).isNull();
    }

    private int request(String method, String path, String body) throws Exception {
        HttpURLConnection c = (HttpURLConnection) URI.create(node.endpoint() + path).toURL().openConnection();
        c.setRequestMethod(method);
        c.setDoOutput(true);
        c.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
        int status = c.getResponseCode();
        c.disconnect();
        return status;
    }
}
