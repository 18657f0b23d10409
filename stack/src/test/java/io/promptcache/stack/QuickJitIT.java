package io.promptcache.stack;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code up --jit QUICK} (issue 38): every JVM of the stack - the services and its broker - runs with C1 only, and
 * the stack serves a bench without an error.
 */
class QuickJitIT {

    @TempDir
    Path work;

    @Test
    void shouldRunEveryJvmOfTheStackWithC1Only() throws Exception {
        Path home = Path.of("..").toAbsolutePath().normalize();
        try (Stack stack = Stack.start(StackSpec.oneOfEach(home, new Jvm(null, Jvm.Aot.OFF, Jvm.Jit.QUICK)))) {
            ShortBench.on(stack, work, "10s").assertClean();
            List<String> commands = stack.processes().stream()
                    .map(process -> process.info().commandLine().orElse("")).toList();
            assertThat(commands).as("3 services and the broker").hasSize(4)
                    .allSatisfy(command -> assertThat(command).contains("-XX:TieredStopAtLevel=1"));
        }
    }
}
