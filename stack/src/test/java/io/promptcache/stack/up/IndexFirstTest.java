package io.promptcache.stack.up;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class IndexFirstTest {

    @Test
    void shouldShareTheCpuAlikeByDefault() {
        IndexFirst chosen = IndexFirst.of(null);

        assertThat(chosen.on()).isFalse();
        assertThat(chosen.line()).contains("shared alike", "the default", "--index-first");
    }

    @Test
    void shouldPutTheIndexFirstOnlyWhenAsked() {
        // asked for where it is not allowed: on, and the stack's start fails saying why (JvmOptionsIT)
        IndexFirst asked = IndexFirst.of(true);
        assertThat(asked.on()).isTrue();
        assertThat(asked.line()).contains("nice -10", "SCHED_RR", "--index-first");
        assertThat(IndexFirst.of(false).on()).isFalse();
        assertThat(IndexFirst.of(false).line()).contains("--no-index-first");
    }

    @Test
    void shouldReadUpsTwoOptionsAndNeither() {
        assertThat(parsed().indexFirst).as("neither: off").isNull();
        assertThat(parsed("--index-first").indexFirst).isTrue();
        assertThat(parsed("--no-index-first").indexFirst).isFalse();
    }

    private static UpCommand parsed(String... args) {
        UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs(args);
        return up;
    }
}
