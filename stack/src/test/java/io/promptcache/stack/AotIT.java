package io.promptcache.stack;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * JDK 25 AOT caches (issue 38): {@code promptcache train} records one per service from a short bench, and a stack
 * started with them ({@code up --java <JDK 25> --aot}) runs every service with its cache, which the JVM accepts (it
 * logs a warning for a cache it cannot use), and serves a bench without an error. The JDK 25 is
 * {@code $PROMPTCACHE_JAVA25} or Temurin 25's usual path; without one the test is skipped, and fails under
 * {@code CI=true}.
 */
class AotIT {

    private static final List<String> MODULES = List.of("storage-node", "gc-processor", "index-service");

    @TempDir
    Path work;

    @Test
    void shouldTrainCachesAndRunEveryServiceWithItsOwn() throws Exception {
        Path java = Path.of(System.getenv().getOrDefault("PROMPTCACHE_JAVA25",
                "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java"));
        if (!Files.isExecutable(java)) {
            assertThat(System.getenv("CI")).as("a JDK 25 (PROMPTCACHE_JAVA25) is needed under CI=true").isNotEqualTo(
                    "true");
            Assumptions.abort("no JDK 25 at " + java);
        }
        Path home = Path.of("..").toAbsolutePath().normalize();

        // When: the caches are trained
        int trained = StackMain.run("train", "--java", java.toString(), "--duration", "10s", "--home",
                home.toString());

        // Then: one per service, from a bench that ran
        assertThat(trained).isZero();
        for (String module : MODULES) {
            assertThat(Stack.aotCache(home, module)).isRegularFile();
        }

        // When: a stack runs with them
        try (Stack stack = Stack.start(StackSpec.oneOfEach(home, new Jvm(java, Jvm.Aot.USE)))) {
            // Then: every service runs with its cache, accepted, compiling eagerly, and the bench went without an error
            ShortBench.on(stack, work, "6s").assertClean();
            for (ProcessHandle process : stack.processes()) {
                String command = process.info().commandLine().orElse("");
                if (command.contains("quarkus-run.jar")) {
                    assertThat(command).contains("-XX:AOTCache=", "-XX:+AOTCompileEagerly").startsWith(java.toString());
                }
            }
            try (var logs = Files.list(stack.dataDir().resolve("logs"))) {
                for (Path log : logs.toList()) {
                    assertThat(Files.readString(log)).as(log.toString()).doesNotContain("[aot]");
                }
            }
        }
    }
}
