package io.promptcache.devservices.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.StorageNodeConfig;

/**
 * A real storage node for tests (the packaged storage-node app, its own process) heartbeating to {@code bootstrap}, with a
 * fresh data dir under target/. Heartbeats every 500 ms: placement sees it within a second, and a busy CI machine
 * does not make it look dead (live = a heartbeat younger than 3 intervals).
 */
public final class StorageNodeProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final ServiceProcess process;
    private final String nodeId;

    private StorageNodeProcess(ServiceProcess process, String nodeId) {
        this.process = process;
        this.nodeId = nodeId;
    }

    public static StorageNodeProcess start(String bootstrap, Map<String, String> extra) {
        String nodeId = "node-" + UUID.randomUUID().toString().substring(0, 8);
        Path dir = Path.of("target", "storage-nodes", nodeId).toAbsolutePath();
        int port = ServiceProcess.freePort();
        Map<String, String> props = StorageNodeConfig.of(bootstrap, nodeId, port, dir.resolve("data"))
                .heartbeat(Duration.ofMillis(500)).capacity(1L << 30).logLevel("WARN").with(extra).toMap();
        return new StorageNodeProcess(ServiceProcess.of("storage-node", props, dir.resolve("node.log"))
                .start(Duration.ofSeconds(90)), nodeId);
    }

    public String nodeId() {
        return nodeId;
    }

    public String endpoint() {
        return "http://127.0.0.1:" + process.port();
    }

    /** The node's physical used bytes now, from its readiness data (no heartbeat lag). */
    public long usedBytes() {
        return readiness("usedBytes");
    }

    /** Physical bytes the node would free on demand for a write now (objects the GC marked), from its readiness. */
    public long reclaimableBytes() {
        return readiness("reclaimableBytes");
    }

    /**
     * S3 requests of one operation (its metric label: {@code put_object}, {@code upload_part_copy}, ...) the node has answered, whatever
     * their outcome, from its {@code /q/metrics}.
     */
    public long requests(String operation) {
        Matcher m = Pattern.compile("(?m)^promptcache_s3_requests_seconds_count\\{([^}]*)\\} (\\S+)$")
                .matcher(get("/q/metrics"));
        long total = 0;
        while (m.find()) {
            if (m.group(1).contains("operation=\"" + operation + "\"")) {
                total += (long) Double.parseDouble(m.group(2));
            }
        }
        return total;
    }

    private String get(String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint() + path)).build();
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException(path + " of " + nodeId, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private long readiness(String field) {
        String ready = get("/q/health/ready");
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(ready);
        if (!m.find()) {
            throw new IllegalStateException("no " + field + " in the readiness of " + nodeId + ": " + ready);
        }
        return Long.parseLong(m.group(1));
    }

    /** Sends {@code kill -<signal>}: {@code STOP} pauses the node (as a stall would), {@code CONT} resumes it. */
    public void signal(String signal) {
        process.signal(signal);
    }

    /** Crash: SIGKILL. */
    public void kill() {
        process.kill();
    }

    @Override
    public void close() {
        process.close();
    }
}
