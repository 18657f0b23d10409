package io.promptcache.index.routing;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.RollingHashChain;

import static org.assertj.core.api.Assertions.assertThat;

class UpkeepRoundTest {

    private static final PoolKey POOL = new PoolKey("m", 4, "", "", "default");
    private final RoutingTables tables = new RoutingTables();
    private final LoadBoard loads = new LoadBoard(Duration.ofSeconds(10), System::nanoTime);
    private final UpkeepRound round = new UpkeepRound(tables, loads, 5, Duration.ofSeconds(60),
            Duration.ofMinutes(10));

    @Test
    void shouldExpireUnconfirmedPredictionsAfterTheirTtlAndCapEachBackend() {
        // Given: at t=0 a prediction of 3 blocks on a, and 8 confirmed blocks on b (cap 5)
        BlockTracker tracker = tables.tracker(POOL);
        long[] predicted = chain(1, 3);
        long[] confirmed = chain(2, 8);
        tracker.stored("b", confirmed, new long[0], 0);
        tracker.predicted("a", predicted);
        round.run(0);

        // When / Then: at 30 s the prediction still counts; b is capped to its 5 most recent blocks (chain start)
        assertThat(tracker.match("a", predicted)).isEqualTo(3);
        assertThat(tracker.match("b", confirmed)).isEqualTo(5);
        round.run(30_000);
        assertThat(tracker.match("a", predicted)).isEqualTo(3);

        // When / Then: one round after 60 s it is gone
        round.run(61_000);
        assertThat(tracker.match("a", predicted)).isZero();
    }

    @Test
    void shouldDropABackendWhoseEventsStopped() {
        // Given: a and b publish at t=0; only b goes on publishing
        BlockTracker tracker = tables.tracker(POOL);
        tracker.stored("a", chain(3, 2), new long[0], 0);
        tracker.stored("b", chain(4, 2), new long[0], 0);
        loads.routed("a");
        round.run(0);
        for (long t = 60_000; t < 600_000; t += 60_000) {
            tracker.stored("b", chain(5 + (int) t, 1), new long[0], 0);
            assertThat(round.run(t).backendsDropped()).as("at %d ms", t).isEmpty();
        }

        // When: 10 minutes after a's last event
        tracker.stored("b", chain(99, 1), new long[0], 0);
        UpkeepRound.Outcome outcome = round.run(600_000);

        // Then
        assertThat(outcome.backendsDropped()).isEqualTo(List.of("a"));
        assertThat(tracker.sizes()).containsOnlyKeys("b");
        assertThat(loads.load("a")).isZero();
    }

    private static long[] chain(int seed, int blocks) {
        return RollingHashChain.of(4, new Random(seed).ints(blocks * 4, 0, 1000).toArray());
    }
}
