package io.promptcache.stack.up;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

class IndexFirstTest {

    @Test
    void shouldPutTheIndexFirstByDefaultWhereItIsAllowed() {
        IndexFirst chosen = IndexFirst.of(null, Optional.empty());

        assertThat(chosen.on()).isTrue();
        assertThat(chosen.line()).contains("nice -10", "SCHED_RR", "--no-index-first");
    }

    @Test
    void shouldShareTheCpuAndSayWhyByDefaultWhereItIsNotAllowed() {
        IndexFirst chosen = IndexFirst.of(null, Optional.of("it needs root or CAP_SYS_NICE"));

        assertThat(chosen.on()).isFalse();
        assertThat(chosen.line()).contains("not available (it needs root or CAP_SYS_NICE)");
    }

    @Test
    void shouldDoWhatItIsToldWhateverThisMachineAllows() {
        // asked for where it is not allowed: on, and the stack's start fails saying why (JvmOptionsIT)
        assertThat(IndexFirst.of(true, Optional.of("it needs root or CAP_SYS_NICE")).on()).isTrue();
        assertThat(IndexFirst.of(false, Optional.empty()).on()).isFalse();
        assertThat(IndexFirst.of(false, Optional.empty()).line()).contains("--no-index-first");
    }

    @Test
    void shouldReadUpsTwoOptionsAndNeither() {
        assertThat(parsed().indexFirst).as("neither: the machine decides").isNull();
        assertThat(parsed("--index-first").indexFirst).isTrue();
        assertThat(parsed("--no-index-first").indexFirst).isFalse();
    }

    private static UpCommand parsed(String... args) {
        UpCommand up = new UpCommand();
        new CommandLine(up).parseArgs(args);
        return up;
    }
}
