package io.promptcache.freshmachine;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's first command on a new user's machine (issue 66): a copy of this checkout as a fresh clone holds it
 * (tracked and untracked files, no {@code target/}), an empty Maven repository and an empty home (the wrapper
 * downloads Maven again). {@code ./promptcache up} builds everything from nothing with the checkout's own build JVM
 * settings ({@code .mvn/jvm.config}: a C1-only JVM with its default 48 MB code cache failed this build one time in
 * two), starts the stack, serves a namespace and a lookup, and stops on SIGTERM as on Ctrl-C.
 */
class FreshMachineIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();
    /** Downloads from Maven Central and a full build on 2 cores: about 2 minutes here, with room for a slow day. */
    private static final Duration BUILD_AND_START = Duration.ofMinutes(15);

    @TempDir
    Path work;

    @Test
    void shouldBuildAndStartOnTheFirstUpWithAnEmptyMavenRepository() throws Exception {
        // Given: a fresh clone, an empty Maven repository and home, free ports
        Path clone = work.resolve("promptcache");
        copyCheckout(clone);
        Path home = Files.createDirectories(work.resolve("home"));
        Path repository = work.resolve("m2-repository");
        Path log = work.resolve("up.log");
        int[] ports = {freePort(), freePort(), freePort()};
        ProcessBuilder up = new ProcessBuilder("./promptcache", "up", "--index-port", "" + ports[0], "--node-port",
                "" + ports[1], "--gc-port", "" + ports[2], "--stack-file", work.resolve("stack.json").toString())
                .directory(clone.toFile()).redirectErrorStream(true).redirectOutput(log.toFile());
        up.environment().put("HOME", home.toString());
        // the JVM takes ~/.m2 from the account, not from HOME: the repository is named for Maven itself
        up.environment().put("MAVEN_ARGS", "-Dmaven.repo.local=" + repository);
        up.environment().remove("MAVEN_OPTS");

        // When: the README's first command
        long started = System.nanoTime();
        Process process = up.start();
        try {
            waitForLine(process, log, "promptcache is up");
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("fresh machine: ./promptcache up said up after %.0f s%n", seconds);

            // Then: it serves engines
            assertThat(Files.list(repository).count()).as("the build filled the empty repository").isPositive();
            String index = "http://127.0.0.1:" + ports[0];
            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> registered = http.send(HttpRequest.newBuilder(URI.create(index + "/v1/namespaces"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
                            "{\"modelFingerprint\":\"fresh-machine\",\"dtype\":\"bf16\",\"blockSize\":16}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
            String namespace = registered.body().replaceAll("(?s).*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
            HttpResponse<String> lookup = http.send(HttpRequest.newBuilder(URI.create(index + "/v1/namespaces/"
                    + namespace + "/lookup")).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"tokens\":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
                            + "16,17]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(lookup.statusCode()).as(lookup.body()).isEqualTo(200);
            assertThat(lookup.body()).contains("\"hit\":false");
        } finally {
            // Ctrl-C or SIGTERM: every service stopped, the throwaway data deleted
            process.destroy();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("up stopped within a minute of SIGTERM").isTrue();
        }
        assertThat(Files.readString(log)).contains("promptcache stopped").doesNotContain("CodeCache is full");
    }

    private static void waitForLine(Process process, Path log, String line) throws Exception {
        long deadline = System.nanoTime() + BUILD_AND_START.toNanos();
        while (System.nanoTime() < deadline) {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            if (text.contains(line)) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError("./promptcache up exited with " + process.exitValue()
                        + " before it was up:\n" + tail(text));
            }
            process.waitFor(1, TimeUnit.SECONDS);
        }
        throw new AssertionError("./promptcache up not up within " + BUILD_AND_START + ":\n"
                + tail(Files.readString(log, StandardCharsets.UTF_8)));
    }

    private static String tail(String text) {
        return text.substring(Math.max(0, text.length() - 6000));
    }

    /** What a clone of this checkout would hold once its changes are committed: tracked and untracked files. */
    private static void copyCheckout(Path to) throws IOException, InterruptedException {
        Process git = new ProcessBuilder("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
                .directory(HOME.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] listing = git.getInputStream().readAllBytes();
        assertThat(git.waitFor()).as("git ls-files in " + HOME).isZero();
        List<String> files = new ArrayList<>(List.of(new String(listing, StandardCharsets.UTF_8).split("\0")));
        files.removeIf(String::isEmpty);
        assertThat(files).contains("promptcache", "mvnw", ".mvn/jvm.config");
        for (String file : files) {
            Path source = HOME.resolve(file);
            if (!Files.isRegularFile(source)) {
                continue; // deleted in the work tree, not yet committed
            }
            Path target = to.resolve(file);
            try {
                Files.createDirectories(target.getParent());
                Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
            } catch (IOException e) {
                throw new UncheckedIOException("copying " + file, e);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
