package io.promptcache.stack;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.status.Metrics;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

/**
 * A node whose GC stopped keeps taking writes: the gc-processor is paused (SIGSTOP) while a bench writes several
 * times the node's capacity through the index. No GC marks anything, so the node makes room from its own least
 * recently used objects (unused for the node's grace window, 500 ms here: at this write rate a longer window can
 * leave nothing old enough to delete, and a 507 is then the right answer); every store is accepted. The node sends
 * what it deleted on the {@code reclaims} topic; once the GC runs again (SIGCONT), paused longer after the last
 * deletion than heartbeats ever repeated them (10 s), it tombstones those objects like reclaimed candidates, and the
 * bytes it counts held on the node come back to what the node really holds.
 */
class GcPausedIT {

    private static final long CAPACITY = 8L << 20;
    private static final long PAUSED_AFTER_BENCH_MS = 12_000;

    @TempDir
    Path work;

    @Test
    void shouldTakeEveryWriteWhileTheGcIsPausedAndTellTheGcWhatItEvicted() throws Exception {
        Path home = Path.of("..").toAbsolutePath().normalize();
        StackSpec spec = new StackSpec(home, null, 1, 1, 1, 0, 0, 0, CAPACITY, null, Map.of(),
                Map.of("promptcache.grace", "500ms"), Map.of(), true, Secrets.random(24));
        try (Stack stack = Stack.start(spec)) {
            StackInfo info = stack.info();
            Path stackFile = work.resolve("stack.json");
            info.write(stackFile);
            ServiceProcess gc = stack.gcs().get(0);
            String node = info.nodes().get(0).url();

            // When: the GC is paused, and a bench writes far more than the node holds
            gc.signal("STOP");
            JsonNode result;
            try {
                Path out = work.resolve("report");
                StringWriter console = new StringWriter();
                CommandLine cli = StackMain.commandLine();
                cli.setOut(new PrintWriter(console));
                int exit = cli.execute("bench", "--stack-file", stackFile.toString(), "--duration", "15s",
                        "--concurrency", "4", "--kv-bytes-per-token", "512", "--system-tokens", "1024",
                        "--turn-tokens", "256", "--conversations", "32", "--out", out.toString(), "--no-progress");
                result = new ObjectMapper().readTree(out.resolve("report.json").toFile()).get("result");
                assertThat(exit).as(console.toString()).isZero();
                // Then: every store accepted, though nothing was marked for eviction: the node evicted its own
                assertThat(result.get("errors").size()).as(console.toString()).isZero();
                // more than the node holds (about 4x on an idle machine; 1.7x seen on one shared with other builds):
                // it cannot have kept everything, and the self-evictions below say how it made room
                assertThat(result.get("bytesWritten").asLong()).as("the bench wrote more than the node holds")
                        .isGreaterThan(CAPACITY + CAPACITY / 2);
                // at once when a write needed room, or retired first (listed in its heartbeats, then deleted)
                Metrics nodeMetrics = metrics(node);
                double selfEvicted = nodeMetrics.sum("promptcache_storage_self_evicted_total", Map.of())
                        + nodeMetrics.sum("promptcache_storage_retired_total", Map.of());
                System.out.printf("gc-paused-it: %d stores, %d bytes written to a node of %d, %.0f objects the node "
                        + "evicted by itself, errors %s%n", result.get("stores").asLong(),
                        result.get("bytesWritten").asLong(), CAPACITY, selfEvicted, result.get("errors"));
                assertThat(selfEvicted).as("objects the node evicted by itself").isPositive();
                // and the GC stays away for longer than heartbeats carried a node's deletions (10 s before the
                // reclaims topic: a GC away longer never learned of them, and its held bytes stayed too high)
                Thread.sleep(PAUSED_AFTER_BENCH_MS);
            } finally {
                gc.signal("CONT");
            }

            // Then: the GC, running again, tombstones what the node evicted; what it counts held on the node is what
            // the node holds (within 1 %)
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                Metrics gcMetrics = metrics(info.gc());
                assertThat(gcMetrics.sum("promptcache_gc_candidates_total", Map.of("event", "reclaimed_by_node")))
                        .as("objects the node reported deleted, tombstoned by the GC").isPositive();
                double used = metrics(node).sum("promptcache_storage_used_bytes", Map.of());
                double held = gcMetrics.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "held"));
                assertThat(held).as("GC held vs node used %.0f", used).isCloseTo(used,
                        org.assertj.core.api.Assertions.within(Math.max(1.0, used / 100)));
            });
        }
    }

    private static Metrics metrics(String service) throws IOException, InterruptedException {
        // HTTP/1.1: the JDK client's h2c upgrade trips on the GC's metrics page (megabytes in one frame)
        HttpResponse<String> response = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(HttpRequest.newBuilder(URI.create(service + "/q/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString());
        return Metrics.parse(response.body());
    }
}
