package io.promptcache.stack.up;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.StackMain;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code up --warm-up} is refused, before anything starts, when it is no duration or a negative one (the warm-up
 * itself is driven against a real stack in {@code StackIT}).
 */
class WarmUpOptionTest {

    @TempDir
    Path data;

    private String refused(String value) {
        CommandLine line = StackMain.commandLine();
        StringWriter err = new StringWriter();
        line.setErr(new PrintWriter(err, true));
        line.setOut(new PrintWriter(new StringWriter(), true));
        assertThat(line.execute("up", "--warm-up", value, "--data-dir", data.toString())).isNotZero();
        return err.toString();
    }

    @Test
    void shouldRefuseANegativeWarmUpBeforeStartingAnything() {
        assertThat(refused("-5s")).contains("--warm-up must not be negative");
        assertThat(data.resolve("kafka")).doesNotExist();
    }

    @Test
    void shouldRefuseSomethingThatIsNoDuration() {
        assertThat(refused("soon")).contains("not a duration: 'soon'");
        assertThat(data.resolve("kafka")).doesNotExist();
    }
}
