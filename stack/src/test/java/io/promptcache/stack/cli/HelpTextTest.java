package io.promptcache.stack.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.stack.StackMain;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** Every command's {@code --help} renders as written: a stray {@code %} in a description makes picocli warn. */
class HelpTextTest {

    @Test
    void shouldRenderEveryCommandsHelpWithoutWarnings() {
        CommandLine root = StackMain.commandLine();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(root.getUsageMessage()).contains("Usage: promptcache");
            for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
                assertThat(sub.getValue().getUsageMessage()).as(sub.getKey()).contains("Usage: promptcache "
                        + sub.getKey());
            }
        } finally {
            System.setErr(original);
        }
        assertThat(err.toString(StandardCharsets.UTF_8)).as("picocli's warnings").doesNotContain("WARN");
    }
}
