package io.promptcache.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The images built and the compose stack run for real (deploy/images/compose-check.sh): the base image from Debian
 * packages, Kafka from Maven Central's jars, the three services from their Dockerfiles; compose up until healthy;
 * {@code promptcache bench} through the compose network with 0 errors (every hit's bytes checked); the index's JVM
 * killed and its container back by its restart policy, serving the prompts stored before; everything torn down. It
 * needs Docker's engine (or root to start {@code dockerd}), docker-compose and mmdebstrap: outside CI it is skipped
 * without them, under {@code CI=true} it fails ({@code .ci/run} installs them).
 */
class ComposeStackIT {

    private static final Path HOME = Path.of("..").toAbsolutePath().normalize();

    @TempDir
    Path tmp;

    @Test
    void shouldBuildTheImagesAndServeThroughTheComposeStack() throws Exception {
        List<String> missing = List.of("docker", "docker-compose", "mmdebstrap").stream()
                .filter(t -> !run(List.of("sh", "-c", "command -v " + t))).toList();
        boolean engine = run(List.of("docker", "info")) || (run(List.of("sh", "-c", "command -v dockerd"))
                && "0".equals(id()));
        if (!missing.isEmpty() || !engine) {
            String why = "the compose stack needs " + (missing.isEmpty()
                    ? ""
                    : missing + " (apt-get install docker.io "
                            + "docker-compose mmdebstrap) and ")
                    + "a Docker engine, or root to start dockerd";
            assertThat("true".equals(System.getenv("CI"))).as("CI=true: " + why).isFalse();
            Assumptions.abort(why);
        }
        Path log = tmp.resolve("compose-check.log");
        Process check = new ProcessBuilder("bash", "deploy/images/compose-check.sh").directory(HOME.toFile())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean ended = check.waitFor(20, TimeUnit.MINUTES);
        if (!ended) {
            check.destroy(); // its trap tears the stack down
            check.waitFor(2, TimeUnit.MINUTES);
        }
        List<String> lines = Files.readAllLines(log);
        lines.stream().filter(l -> l.startsWith("compose-check:")).forEach(System.out::println);
        assertThat(ended).as("compose-check.sh ended within 20 minutes").isTrue();
        assertThat(check.exitValue()).as("compose-check.sh exit status; its output:\n" + String.join("\n", lines
                .subList(Math.max(0, lines.size() - 60), lines.size()))).isZero();
        assertThat(lines).contains("compose-check: OK");
        assertThat(lines).anyMatch(l -> l.startsWith("compose-check: bench before") && l.endsWith("errors: {}"));
        assertThat(lines).anyMatch(l -> l.startsWith("compose-check: after the restart the prompts stored before hit"));
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
