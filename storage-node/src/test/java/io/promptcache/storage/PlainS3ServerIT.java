package io.promptcache.storage;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged node started in prod mode with no Kafka configuration at all is a plain S3 server: it starts, serves
 * PUT and GET, reports ready, and says once that heartbeats are off (it once failed to start: "No resolvable
 * bootstrap urls").
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
