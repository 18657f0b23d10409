package io.promptcache.stack;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.stack.bench.WarmUp;
import io.promptcache.stack.cli.StackInfo;
import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The local stack as a user runs it: 2 storage nodes, 2 index replicas, a gc-processor and the broker, each its own
 * process from the packaged applications, storage nodes checking SigV4 (the default of {@code up}) and the index
 * requiring an API key ({@code up --auth}); a short synthetic bench over the public APIs; every metric the Grafana
 * dashboard charts exported; then a clean stop.
 */
class StackIT {

    @TempDir
    Path work;

    @Test
    void shouldServeAShortBenchWithHitsAndNoErrorsThenStopEverything() throws Exception {
        // Given: the stack on free ports, throwaway data
        Path home = Path.of("..").toAbsolutePath().normalize();
        StackSpec spec = new StackSpec(home, null, 2, 2, 1, 0, 0, 0, 256L << 20, null, Map.of(), Map.of(),
                Map.of(), true, Secrets.random(24));
        List<ProcessHandle> processes = new ArrayList<>();
        Path dataDir;
        try (Stack stack = Stack.start(spec)) {
            StackInfo info = stack.info();
            dataDir = Path.of(info.dataDir());
            processes.addAll(stack.processes());
            // every JVM of the stack (services and broker) on the full JIT, with its compiler threads on few cores
            assertThat(processes).as("2 nodes, 2 replicas, a gc-processor and the broker").hasSize(6)
                    .allSatisfy(p -> Jvm.Jit.FULL.options().forEach(option -> assertThat(p.info().commandLine()
                            .orElse("")).contains(option)));
            assertThat(info.index()).hasSize(2);
            assertThat(info.nodes()).hasSize(2);
            Path stackFile = work.resolve("stack.json");
            info.write(stackFile);
            // the nodes refuse what is not signed; the index refuses a caller without the key
            // HTTP/1.1: a metrics page of megabytes answered to an h2c upgrade can reach the JDK client garbled
            HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            HttpResponse<String> unsigned = http.send(HttpRequest.newBuilder(URI.create(info.nodes().get(0).url()
                    + "/promptcache/anything")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unsigned.statusCode()).as(unsigned.body()).isEqualTo(403);
            assertThat(unsigned.body()).contains("AccessDenied");
            HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(URI.create(info.index().get(0)
                    + "/v1/namespaces")).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers
                            .ofString("{\"modelFingerprint\":\"m\",\"dtype\":\"bf16\",\"blockSize\":16}"))
                    .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(anonymous.statusCode()).as(anonymous.body()).isEqualTo(401);

            // When: up's warm-up (--warm-up) for a few seconds, in its own namespace
            WarmUp.Result warm = WarmUp.run(info, Duration.ofSeconds(5));
            assertThat(warm.requests()).as(warm.line()).isPositive();
            assertThat(warm.stores()).as(warm.line()).isPositive();
            assertThat(warm.errors()).as(warm.line()).isZero();
            assertThat(warm.seconds()).as(warm.line()).isBetween(4.0, 30.0);

            // When: a short synthetic bench through both replicas (another namespace: it starts empty)
            Path out = work.resolve("report");
            ShortBench bench = ShortBench.run(stackFile, out, "20s");

            // Then: hits (each a range GET at the presigned URL the lookup returned), no error, a report and its plots
            JsonNode result = bench.result();
            assertThat(bench.exit()).as(bench.console()).isZero();
            assertThat(result.get("requests").asLong()).isPositive();
            assertThat(result.get("blockHitRatio").asDouble()).as(bench.console()).isGreaterThan(0);
            assertThat(result.get("errors").size()).as(bench.console()).isZero();
            assertThat(out.resolve("latency-cdf.svg")).isRegularFile();
            assertThat(out.resolve("throughput.svg")).isRegularFile();

            // Then: status sees every service UP
            StringWriter status = new StringWriter();
            CommandLine statusCli = StackMain.commandLine();
            statusCli.setOut(new PrintWriter(status));
            assertThat(statusCli.execute("status", "--stack-file", stackFile.toString())).as(status.toString())
                    .isZero();
            assertThat(status.toString()).contains("node-1", "node-2").doesNotContain("DOWN")
                    .containsPattern("node-1 +UP +serves, takes writes")
                    .containsPattern("node-2 +UP +serves, takes writes");

            // Then: every metric the Grafana dashboard charts is one the services export
            Set<String> exported = new HashSet<>();
            List<String> services = new ArrayList<>(info.index());
            info.nodes().forEach(n -> services.add(n.url()));
            services.add(info.gc());
            for (String service : services) {
                String text = http.send(HttpRequest.newBuilder(URI.create(service + "/q/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString()).body();
                Matcher names = Pattern.compile("(?m)^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]").matcher(text);
                while (names.find()) {
                    exported.add(names.group(1));
                }
            }
            Set<String> charted = new HashSet<>();
            Matcher metric = Pattern.compile("promptcache_[a-z0-9_]+").matcher(String.join("\n",
                    new ObjectMapper().readTree(home.resolve("deploy/grafana/promptcache.json").toFile())
                            .findValuesAsText("expr")));
            while (metric.find()) {
                charted.add(metric.group());
            }
            assertThat(charted).hasSizeGreaterThan(10);
            assertThat(exported).as("metrics the dashboard (deploy/grafana/promptcache.json) charts").containsAll(
                    charted);
        }

        // Then: a clean stop - no process left (nor any child of one), the throwaway data dir gone
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(processes)
                .noneMatch(p -> p.isAlive() || p.descendants().anyMatch(ProcessHandle::isAlive)));
        assertThat(processes).hasSize(6);
        assertThat(Files.exists(dataDir)).as("throwaway data dir " + dataDir).isFalse();
    }
}
