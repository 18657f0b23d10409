package io.promptcache.deploy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.status.TopicSnapshot;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The container images without a Docker engine: every Dockerfile parses, takes its base as a build argument, runs as
 * non-root and has a health check;
 * what a JVM image copies exists in {@code target/}; and each JVM image's ENTRYPOINT, with the image's ENV and the
 * environment the Kubernetes manifests give its container (deploy/k8s/base), starts the application from the same
 * layout - against a real broker - until its health endpoints answer as the manifests' probes expect.
 */
class DockerfilesIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static final Duration READY_WITHIN = Duration.ofSeconds(180);
    private static EmbeddedKafkaBroker broker;

    @TempDir
    Path tmp;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start();
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Test
    void shouldHaveDockerfilesThatParseRunAsNonRootAndCheckTheirHealth() throws Exception {
        for (String module : List.of("storage-node", "index-service", "gc-processor", "engine-bridge")) {
            for (String name : List.of("Dockerfile.jvm", "Dockerfile.native")) {
                Path file = HOME.resolve(module).resolve("src/main/docker").resolve(name);
                if (name.endsWith(".native") && module.equals("engine-bridge")) {
                    assertThat(file).as("engine-bridge has no native build").doesNotExist();
                    continue;
                }
                Dockerfile dockerfile = Dockerfile.parse(file);
                // the base is a build argument (deploy/images/base-image.sh makes one from Debian packages), with
                // the registry image as its default for users elsewhere
                assertThat(dockerfile.last("FROM").arguments()).as(file + ": FROM").isEqualTo("${BASE_IMAGE}");
                assertThat(dockerfile.base()).as(file + ": the default base")
                        .startsWith("registry.access.redhat.com/ubi9/");
                assertThat(dockerfile.user()).as(file + ": the user of the ENTRYPOINT").isNotIn("root", "0", "");
                assertThat(dockerfile.healthcheck()).as(file + ": HEALTHCHECK").isNotEmpty();
                assertThat(dockerfile.entrypoint()).as(file + ": ENTRYPOINT").isNotEmpty();
                if (name.endsWith(".jvm")) {
                    for (String[] copy : dockerfile.copies()) {
                        assertThat(sources(HOME.resolve(module), copy[0])).as(file + ": COPY " + copy[0]
                                + " (package the module first)").isNotEmpty();
                    }
                }
            }
        }
    }

    @Test
    void shouldStartTheStorageNodeAsTheImageAndTheManifestSayUntilReady() throws Exception {
        try (Started node = start("storage-node", StatefulSet.class)) {
            JsonNode storage = check(node.readiness(), "storage");
            assertThat(storage.path("data").path("dataDir").asText())
                    .isEqualTo(tmp.resolve("var/lib/promptcache/storage-node").toString());
            assertThat(storage.path("data").path("capacityBytes").asLong())
                    .isEqualTo(Long.parseLong(node.env().get("PROMPTCACHE_STORAGE_CAPACITY_BYTES")));
            assertThat(node.get("/promptcache-kv/some-key").statusCode()).as("SigV4 on: an unsigned GET")
                    .isEqualTo(403);
            Map<NodeId, NodeStatus> heartbeats = TopicSnapshot.latest(broker.bootstrapServers(), Topics.NODES);
            assertThat(heartbeats.get(new NodeId("storage-node-0"))).as("a heartbeat under the pod's name")
                    .isNotNull().satisfies(status -> assertThat(status.getEndpoint())
                            .isEqualTo("http://storage-node-0.storage-node.test.svc:9000"));
        }
    }

    @Test
    void shouldStartTheIndexServiceAsTheImageAndTheManifestSayUntilReady() throws Exception {
        try (Started index = start("index-service", StatefulSet.class)) {
            check(index.readiness(), "prefix-map");
            assertThat(nonEmpty(tmp.resolve("var/lib/promptcache/index-state"))).as("the state dir on the volume")
                    .isTrue();
            // API keys on, the key from the Secret (principal default/engines): a call without it is refused
            String namespace = "/v1/namespaces/" + "0".repeat(32);
            assertThat(index.get(namespace).statusCode()).as("no API key").isEqualTo(401);
            assertThat(index.get(namespace, "Authorization", "Bearer " + PodEnv.SECRET).statusCode())
                    .as("the Secret's key: past authentication, an unknown namespace").isEqualTo(404);
        }
    }

    @Test
    void shouldStartTheGcProcessorAsTheImageAndTheManifestSayUntilReady() throws Exception {
        try (Started gc = start("gc-processor", Deployment.class)) {
            check(gc.readiness(), "co-partitioning");
            assertThat(nonEmpty(tmp.resolve("var/lib/promptcache/gc-state"))).as("the state dir on the volume")
                    .isTrue();
        }
    }

    @Test
    void shouldStartTheEngineBridgeAsTheImageSays() throws Exception {
        Dockerfile dockerfile = Dockerfile.parse(HOME.resolve("engine-bridge/src/main/docker/Dockerfile.jvm"));
        Path root = layout(HOME.resolve("engine-bridge"), dockerfile);
        List<String> command = command(dockerfile, root);
        command.addAll(List.of("--zmq", "tcp://127.0.0.1:" + ServiceProcess.freePort(), "--backend",
                "http://127.0.0.1:8000", "--model", "m", "--block-size", "16", "--bootstrap",
                broker.bootstrapServers()));
        Path log = tmp.resolve("engine-bridge.log");
        Process process = new ProcessBuilder(command).directory(root.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(log).contains("Bridging") && process.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertThat(Files.readString(log)).as("the bridge's log").contains("Bridging");
            assertThat(process.isAlive()).isTrue();
        } finally {
            stop(process);
        }
    }

    /** A started service: its process, port, environment and log. */
    private record Started(Process process, int port, Map<String, String> env, Path log) implements AutoCloseable {

        JsonNode readiness() throws IOException, InterruptedException {
            return JSON.readTree(get("/q/health/ready").body());
        }

        HttpResponse<String> get(String path, String... headers) throws IOException, InterruptedException {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5));
            if (headers.length > 0) {
                request.headers(headers);
            }
            return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }

        @Override
        public void close() {
            try {
                stop(process);
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Starts {@code module} as its JVM image would in its pod: the image's layout under a temporary root, its
     * ENTRYPOINT (java: this JVM's), its ENV, then the env of its container in deploy/k8s/base (POD_NAME
     * {@code <name>-0}, namespace {@code test}, Secrets a test value, Kafka the test broker, volumes under the
     * temporary root); returns once the startup, liveness and readiness endpoints answer 200.
     */
    private Started start(String module, Class<? extends HasMetadata> workload) throws Exception {
        Dockerfile dockerfile = Dockerfile.parse(HOME.resolve(module).resolve("src/main/docker/Dockerfile.jvm"));
        Path root = layout(HOME.resolve(module), dockerfile);
        Container container = container(module, workload);
        int port = ServiceProcess.freePort();
        Map<String, String> env = new LinkedHashMap<>(dockerfile.env());
        env.putAll(PodEnv.of(container, module + "-0", "test", configMap()));
        env.put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
        env.put("QUARKUS_HTTP_PORT", Integer.toString(port));
        env.replaceAll((k, v) -> v.replace("/var/lib/promptcache", tmp.resolve("var/lib/promptcache").toString()));
        Files.createDirectories(tmp.resolve("var/lib/promptcache"));
        Path log = tmp.resolve(module + ".log");
        ProcessBuilder builder = new ProcessBuilder(command(dockerfile, root)).directory(root.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().putAll(env);
        Started started = new Started(builder.start(), port, env, log);
        try {
            awaitOk(started, List.of("/q/health/started", "/q/health/live", "/q/health/ready"));
            return started;
        } catch (AssertionError | Exception e) {
            started.close();
            throw e;
        }
    }

    private static void awaitOk(Started s, List<String> paths) throws Exception {
        long deadline = System.nanoTime() + READY_WITHIN.toNanos();
        for (String path : paths) {
            int status = -1;
            while (System.nanoTime() < deadline && s.process().isAlive()) {
                try {
                    status = s.get(path).statusCode();
                } catch (IOException notYet) {
                    status = -1;
                }
                if (status == 200) {
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(status).as(path + " of the process started as the image says; its log:\n"
                    + tail(s.log())).isEqualTo(200);
        }
    }

    /** The check named {@code name} among a health answer's checks, UP. */
    private static JsonNode check(JsonNode health, String name) {
        for (JsonNode check : health.path("checks")) {
            if (check.path("name").asText().equals(name)) {
                assertThat(check.path("status").asText()).as(name).isEqualTo("UP");
                return check;
            }
        }
        throw new AssertionError("no check " + name + " in " + health);
    }

    /** The image's files under {@code <tmp>/<module>}: every COPY of the Dockerfile, from the module's dir. */
    private Path layout(Path moduleDir, Dockerfile dockerfile) throws IOException {
        Path root = tmp.resolve(moduleDir.getFileName());
        for (String[] copy : dockerfile.copies()) {
            Path destination = root.resolve(copy[1].substring(1));
            for (Path source : sources(moduleDir, copy[0])) {
                if (Files.isDirectory(source)) {
                    copyTree(source, destination);
                } else {
                    Files.createDirectories(destination);
                    Files.copy(source, destination.resolve(source.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return root;
    }

    /** The ENTRYPOINT with this JVM's java and the image's absolute paths under {@code root}. */
    private static List<String> command(Dockerfile dockerfile, Path root) {
        List<String> command = new ArrayList<>();
        for (String word : dockerfile.entrypoint()) {
            if (command.isEmpty() && word.equals("java")) {
                command.add(ProcessHandle.current().info().command().orElse("java"));
            } else {
                command.add(word.startsWith("/deployments") ? root + word : word);
            }
        }
        return command;
    }

    /** What a COPY source names in {@code dir}: a directory, a file, or the files a glob matches. */
    private static List<Path> sources(Path dir, String source) throws IOException {
        if (!source.contains("*")) {
            Path path = dir.resolve(source);
            return Files.exists(path) ? List.of(path) : List.of();
        }
        Path parent = dir.resolve(source.substring(0, source.lastIndexOf('/')));
        if (!Files.isDirectory(parent)) {
            return List.of();
        }
        PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + source.substring(
                source.lastIndexOf('/') + 1));
        List<Path> matches = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(parent)) {
            files.forEach(f -> {
                if (Files.isRegularFile(f) && glob.matches(f.getFileName())) {
                    matches.add(f);
                }
            });
        }
        return matches;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            for (Path p : walk.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static Container container(String name, Class<? extends HasMetadata> kind) throws IOException {
        for (JsonNode doc : Manifests.documents(Files.readString(Manifests.K8S.resolve("base").resolve(name
                + ".yaml")))) {
            HasMetadata resource = Manifests.typed(doc);
            if (kind.isInstance(resource)) {
                return resource instanceof StatefulSet s
                        ? s.getSpec().getTemplate().getSpec().getContainers().get(0)
                        : ((Deployment) resource).getSpec().getTemplate().getSpec().getContainers().get(0);
            }
        }
        throw new AssertionError("no " + kind.getSimpleName() + " in deploy/k8s/base/" + name + ".yaml");
    }

    private static Map<String, String> configMap() throws IOException {
        for (JsonNode doc : Manifests.documents(Files.readString(Manifests.K8S.resolve("base/config.yaml")))) {
            if (doc.path("kind").asText().equals("ConfigMap")) {
                Map<String, String> data = new LinkedHashMap<>();
                doc.path("data").properties().forEach(e -> data.put(e.getKey(), e.getValue().asText()));
                return data;
            }
        }
        throw new AssertionError("no ConfigMap in deploy/k8s/base/config.yaml");
    }

    private static boolean nonEmpty(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> files = Files.list(dir)) {
            return files.findAny().isPresent();
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private static void stop(Process process) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
