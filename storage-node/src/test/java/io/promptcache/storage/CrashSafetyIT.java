package io.promptcache.storage;

import java.io.IOException;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Crash safety of the packaged node: it runs as its own process, is killed with SIGKILL while PUTs are in flight
 * (one of them deliberately stalled mid-body), and restarts on the same data directory. Every object is then
 * either complete (its bytes hash to what was sent) or absent, and startup validation reports what it cleaned.
 */
class CrashSafetyIT {

    private static final String BUCKET = "crash-test";

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
    void shouldShowEveryObjectCompleteOrAbsentAfterSigkill() throws Exception {
        // Given: the packaged node with persistent durability
        node = new PackagedNode(data);
        int port = node.port();
        node.start();
        assertThat(request(port, "PUT", "/" + BUCKET, new byte[0])).isEqualTo(200);
        Map<String, String> sentMd5 = new ConcurrentHashMap<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 4; w++) {
            int writer = w;
            Thread t = new Thread(() -> write(port, writer, sentMd5, running), "writer-" + w);
            t.start();
            writers.add(t);
        }
        Socket stalled = stallMidBody(port);
        // When: SIGKILL while writes are in flight
        await().atMost(Duration.ofSeconds(30)).until(() -> sentMd5.size() >= 12);
        node.kill();
        running.set(false);
        for (Thread t : writers) {
            t.join(30_000);
        }
        stalled.close();
        // Then: after a restart on the same data, every attempted object is complete or absent
        node.start();
        int complete = 0;
        for (Map.Entry<String, String> sent : sentMd5.entrySet()) {
            byte[] body = node.get("/" + BUCKET + "/" + sent.getKey());
            if (body != null) {
                assertThat(md5(body)).as(sent.getKey()).isEqualTo(sent.getValue());
                complete++;
            }
        }
        assertThat(complete).as("objects that survived").isPositive();
        assertThat(node.readiness("validationTempCleaned")).as("partial bodies cleaned at startup").isPositive();
        assertThat(node.readiness("objects")).isEqualTo(complete);
        System.out.printf("CrashSafetyIT: %d PUTs started, %d complete after SIGKILL + restart, validation cleaned "
                + "%d temp files, %d orphans, %d missing%n", sentMd5.size(), complete,
                node.readiness("validationTempCleaned"), node.readiness("validationOrphansCleaned"),
                node.readiness("validationMissingCleaned"));
        try (var parts = Files.list(data.resolve("tmp"))) {
            assertThat(parts).isEmpty();
        }
        // and the start says how the previous run ended (readiness data, metrics): killed; then, after a graceful
        // stop, clean
        assertThat(node.readinessText("previousShutdown")).isEqualTo("unclean");
        assertThat(new String(node.get("/q/metrics"), StandardCharsets.UTF_8))
                .containsPattern("promptcache_previous_shutdown\\{state=\"unclean\",?} 1\\.0")
                .containsPattern("promptcache_previous_shutdown\\{state=\"clean\",?} 0\\.0");
        node.stop();
        node.start();
        assertThat(node.readinessText("previousShutdown")).isEqualTo("clean");
    }

    /** PUTs bodies of 256 KiB .. 4 MiB until stopped; records the MD5 of every body it starts sending. */
    private static void write(int port, int writer, Map<String, String> sentMd5, AtomicBoolean running) {
        Random random = new Random(writer);
        for (int i = 0; running.get() && i < 10_000; i++) {
            byte[] body = new byte[(256 << 10) + random.nextInt(4 << 20)];
            random.nextBytes(body);
            String key = "w" + writer + "/obj-" + i;
            sentMd5.put(key, md5(body));
            try {
                request(port, "PUT", "/" + BUCKET + "/" + key, body);
            } catch (IOException killed) {
                return;
            }
        }
    }

    /** Sends half of a declared body and keeps the connection open: a partial body sits in tmp/ at the kill. */
    private static Socket stallMidBody(int port) throws IOException {
        Socket socket = new Socket("127.0.0.1", port);
        OutputStream out = socket.getOutputStream();
        out.write(("PUT /" + BUCKET + "/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2000000\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(new byte[1_000_000]);
        out.flush();
        return socket;
    }

    private static int request(int port, String method, String path, byte[] body) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                .openConnection();
        c.setRequestMethod(method);
        c.setConnectTimeout(5_000);
        c.setReadTimeout(30_000);
        c.setDoOutput(true);
        c.setFixedLengthStreamingMode(body.length);
        try (OutputStream out = c.getOutputStream()) {
            out.write(body);
        }
        int status = c.getResponseCode();
        c.disconnect();
        return status;
    }

    private static String md5(byte[] body) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("MD5").digest(body));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
