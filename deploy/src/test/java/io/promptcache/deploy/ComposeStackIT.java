package io.promptcache.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The images built and the compose stack run for real (deploy/images/compose-check.sh) under each compose tool users
 * have: docker compose v2, docker-compose 1.29 and podman-compose. The base image from Debian packages, Kafka from
 * Maven Central's jars, the three services from their Dockerfiles (with Docker, and again with podman); compose up
 * until healthy; {@code promptcache bench} through the compose network with 0 errors (every hit's bytes checked); the
 * index's JVM killed and its container back by its restart policy (once per engine), serving the prompts stored
 * before; everything torn down. It needs Docker's engine (or root to start {@code dockerd}), mmdebstrap and the compose
 * tools: outside CI it runs with the tools it finds and is skipped without any, under {@code CI=true} a missing one
 * fails it ({@code .ci/run} installs them).
 */
class ComposeStackIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();
    /** In this order: the first runs the whole scenario (a minute of bench, the kill), the others a short one. */
    private static final List<String> TOOLS = List.of("docker-compose-v2", "docker-compose", "podman-compose");
    private static final Map<String, String> INSTALLED = Map.of("docker-compose-v2", "docker compose version",
            "docker-compose", "command -v docker-compose", "podman-compose",
            "command -v podman-compose && command -v podman");

    @TempDir
    Path tmp;

    @Test
    void shouldBuildTheImagesAndServeThroughTheComposeStackUnderEveryComposeTool() throws Exception {
        List<String> tools = TOOLS.stream().filter(t -> run(List.of("sh", "-c", INSTALLED.get(t)))).toList();
        boolean mmdebstrap = run(List.of("sh", "-c", "command -v mmdebstrap"));
        boolean docker = run(List.of("docker", "info")) || (run(List.of("sh", "-c", "command -v dockerd"))
                && "0".equals(id()));
        List<String> missing = new ArrayList<>(TOOLS);
        missing.removeAll(tools);
        if (!mmdebstrap) {
            missing.add("mmdebstrap");
        }
        if (!docker && tools.stream().anyMatch(t -> t.startsWith("docker"))) {
            missing.add("a Docker engine, or root to start dockerd");
        }
        if (!missing.isEmpty()) {
            String why = "the compose stack needs " + missing + " (apt-get install docker.io docker-compose podman "
                    + "podman-compose runc mmdebstrap; deploy/images/compose-v2.sh for docker compose v2)";
            assertThat("true".equals(System.getenv("CI"))).as("CI=true: " + why).isFalse();
            Assumptions.assumeTrue(mmdebstrap && docker && !tools.isEmpty(), why);
            tools = tools.stream().filter(t -> docker || t.startsWith("podman")).toList();
        }
        Path log = tmp.resolve("compose-check.log");
        Process check = new ProcessBuilder("bash", "deploy/images/compose-check.sh", "--tools", String.join(",",
                tools)).directory(HOME.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = check.waitFor(25, TimeUnit.MINUTES);
        if (!ended) {
            check.destroy(); // its trap tears the stack down
            check.waitFor(2, TimeUnit.MINUTES);
        }
        List<String> lines = Files.readAllLines(log);
        lines.stream().filter(l -> l.startsWith("compose-check:")).forEach(System.out::println);
        assertThat(ended).as("compose-check.sh ended within 25 minutes").isTrue();
        assertThat(check.exitValue()).as("compose-check.sh exit status; its output:\n" + String.join("\n", lines
                .subList(Math.max(0, lines.size() - 60), lines.size()))).isZero();
        assertThat(lines).contains("compose-check: OK (" + String.join(" ", tools) + ")");
        for (String tool : tools) {
            String prefix = "compose-check: " + tool + ": ";
            assertThat(lines).as(tool).anyMatch(l -> l.startsWith(prefix + "bench before") && l.endsWith("errors: {}"));
            assertThat(lines).as(tool).contains(prefix + "OK");
        }
        // the kill, once per engine: Docker's restart policy, and podman's (its own, without systemd)
        String docker0 = tools.stream().filter(t -> t.startsWith("docker")).findFirst().orElse(null);
        for (String tool : Arrays.asList(docker0, tools.contains("podman-compose") ? "podman-compose" : null)) {
            if (tool != null) {
                assertThat(lines).as(tool).anyMatch(l -> l.startsWith("compose-check: " + tool
                        + ": after the restart the prompts stored before hit"));
            }
        }
    }

    private static boolean run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (Exception e) {
            return false;
        }
    }

    private static String id() {
        try {
            Process p = new ProcessBuilder("id", "-u").start();
            p.waitFor(10, TimeUnit.SECONDS);
            return new String(p.getInputStream().readAllBytes()).strip();
        } catch (Exception e) {
            return "";
        }
    }
}
