package io.promptcache.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.promptcache.devservices.launcher.ServiceProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The packaged node as its own process on a data directory, with persistent durability, for crash tests. */
final class PackagedNode implements AutoCloseable {

    private static final Path APP = Path.of("target/quarkus-app/quarkus-run.jar");
    private static final String AUTH_MODE = "promptcache.storage.auth.mode";

    private final Path data;
    private final int port;
    private final String kafka;
    private final Map<String, String> properties = new LinkedHashMap<>();
    private Process process;

    /** A node whose heartbeats go to a closed port (no broker reachable). */
    PackagedNode(Path data) {
        this(data, "127.0.0.1:1");
    }

    /** A node with {@code kafka.bootstrap.servers} set to {@code kafka}, or not set at all when it is null. */
    PackagedNode(Path data, String kafka) {
        this.data = data;
        this.kafka = kafka;
        this.port = ServiceProcess.freePort();
    }

    /** Adds system properties (storage-node configuration) to the next {@link #start}. */
    PackagedNode with(Map<String, String> config) {
        properties.putAll(config);
        return this;
    }

    int port() {
        return port;
    }

    String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** The node's console output. */
    Path log() {
        return data.resolveSibling(data.getFileName() + ".log");
    }

    /** Starts the node and waits until it is ready (startup validation done). */
    void start() throws IOException {
        start(false);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> get("/q/health/ready") != null);
    }

    /**
     * Starts the node with the program's own authentication default (no {@code auth.mode} unless {@link #with} set
     * one) and waits until it is ready.
     */
    void startWithDefaultAuth() throws IOException {
        start(true);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> get("/q/health/ready") != null);
    }

    /**
     * Starts the node with the program's own authentication default and waits, at most {@code within}, for it to
     * exit; returns its exit code (-1 if it is still running: it is then killed).
     */
    int exitCodeWithDefaultAuth(Duration within) throws IOException, InterruptedException {
        start(true);
        if (!process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            return -1;
        }
        return process.exitValue();
    }

    private void start(boolean defaultAuth) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-Dquarkus.http.port=" + port,
                "-Dquarkus.http.host=127.0.0.1", "-Dpromptcache.storage.data-dir=" + data,
                "-Dpromptcache.storage.durability=persistent", "-Dquarkus.log.level=WARN"));
        if (kafka != null) {
            command.add("-Dkafka.bootstrap.servers=" + kafka);
        }
        if (!defaultAuth && !properties.containsKey(AUTH_MODE)) {
            command.add("-D" + AUTH_MODE + "=none"); // the tests that sign say so (with)
        }
        properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.addAll(List.of("-jar", APP.toString()));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()));
        builder.environment().remove("KAFKA_BOOTSTRAP_SERVERS");
        process = builder.start();
    }

    /** SIGKILL: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM: the node stops gracefully (its shutdown hook flushes and leaves its marker). */
    void stop() throws InterruptedException {
        process.destroy();
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the node stopped within 60 s of SIGTERM").isTrue();
    }

    /** A text from the readiness data. */
    String readinessText(String field) throws IOException {
        String json = new String(get("/q/health/ready"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return m.group(1);
    }

    /** A number from the readiness data. */
    long readiness(String field) throws IOException {
        String json = new String(get("/q/health/ready"), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*(\\d+)").matcher(json);
        assertThat(m.find()).as(field + " in " + json).isTrue();
        return Long.parseLong(m.group(1));
    }

    /** The body of a 200 GET, or null. */
    byte[] get(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(endpoint() + path).toURL().openConnection();
        c.setConnectTimeout(5_000);
        c.setReadTimeout(30_000);
        if (c.getResponseCode() != 200) {
            c.disconnect();
            return null;
        }
        try (InputStream in = c.getInputStream()) {
            return in.readAllBytes();
        }
    }

    @Override
    public void close() {
        if (process != null) {
            process.destroyForcibly();
        }
    }
}
