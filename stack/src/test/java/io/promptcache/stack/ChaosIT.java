package io.promptcache.stack;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.stack.chaos.ChaosRun;
import io.promptcache.stack.chaos.Fault;
import io.promptcache.stack.chaos.Round;
import io.promptcache.stack.up.Stack;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fault suite, bounded (about 3 minutes: rounds of 15 s, or the fault's own time when longer): real processes (the broker, 2 storage nodes, 2 index replicas, 2
 * gc-processors), engines serving throughout, one round of each fault; no round may break an invariant. Then the node
 * faults again with every object kept in two copies.
 */
class ChaosIT {

    @Test
    void shouldKeepEveryPromiseThroughOneRoundOfEachFault() throws Exception {
        // Given
        Path home = Path.of("..").toAbsolutePath().normalize();
        StringWriter log = new StringWriter();
        List<Round> rounds;
        // When
        try (Stack stack = Stack.start(ChaosRun.stackSpec(home, null))) {
            rounds = ChaosRun.run(stack, new ChaosRun.Options(Fault.CHAOS.size(), Duration.ofSeconds(15), 20261126,
                    4, Fault.CHAOS, ChaosRun.DEFAULT_RATE), new PrintWriter(log, true));
        }
        System.out.print(log); // the rounds' figures, in the build's output
        // Then: every fault ran under load, and no invariant broke in any round or in the final checks
        assertThat(rounds.stream().map(Round::fault).filter(f -> f != null)).as(log.toString())
                .containsExactlyElementsOf(Fault.CHAOS);
        for (Round round : rounds) {
            assertThat(round.violations()).as(round + "\n" + log).isEmpty();
            if (round.fault() != null) {
                assertThat(round.counts().getOrDefault("requests", 0L)).as(round.toString()).isPositive();
            }
        }
        Map<String, Long> all = rounds.get(rounds.size() - 1).counts();
        assertThat(all.getOrDefault("violation.get_wrong_bytes", 0L)).isZero();
        assertThat(all.getOrDefault("get.ok", 0L)).as("hits served").isPositive();
    }

    @Test
    void shouldKeepEveryPromiseWithTwoCopiesWhileANodeIsPausedOrKilled() throws Exception {
        // Given: every object on both nodes (store.replicas=2: a store writes both copies at once, issue 66)
        Path home = Path.of("..").toAbsolutePath().normalize();
        StringWriter log = new StringWriter();
        List<Fault> faults = List.of(Fault.NODE_PAUSE, Fault.NODE_KILL);
        List<Round> rounds;
        // When
        try (Stack stack = Stack.start(ChaosRun.stackSpec(home, null, 2))) {
            rounds = ChaosRun.run(stack, new ChaosRun.Options(faults.size(), Duration.ofSeconds(15), 20261206, 4,
                    faults, ChaosRun.DEFAULT_RATE), new PrintWriter(log, true));
        }
        System.out.print(log);
        // Then: stores went on while a copy's node was paused or gone, no invariant broke
        for (Round round : rounds) {
            assertThat(round.violations()).as(round + "\n" + log).isEmpty();
            if (round.fault() != null) {
                assertThat(round.counts().getOrDefault("store.201", 0L)).as(round.toString()).isPositive();
            }
        }
        assertThat(rounds.get(rounds.size() - 1).counts().getOrDefault("violation.get_wrong_bytes", 0L)).isZero();
    }
}
