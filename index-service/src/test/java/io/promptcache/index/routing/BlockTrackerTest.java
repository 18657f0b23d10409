package io.promptcache.index.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.RollingHashChain;

import static org.assertj.core.api.Assertions.assertThat;

class BlockTrackerTest {

    private static final int BLOCK = 4;
    private final BlockTracker tracker = new BlockTracker(BLOCK);

    @Test
    void shouldFindByBinarySearchWhatALinearWalkFindsOnRandomContiguousData() {
        // Given: 4 backends, each holding random prefixes of 200 random conversations sharing system prompts
        Random random = new Random(11);
        List<long[]> chains = new ArrayList<>();
        for (int c = 0; c < 200; c++) {
            int[] tokens = new int[BLOCK * (1 + random.nextInt(64))];
            int shared = random.nextInt(3) * 8 * BLOCK; // 0, 8 or 16 blocks of one of few system prompts
            for (int i = 0; i < tokens.length; i++) {
                tokens[i] = i < shared ? (c % 5) * 1000 + i : random.nextInt(50_000);
            }
            chains.add(RollingHashChain.of(BLOCK, tokens));
        }
        for (int b = 0; b < 4; b++) {
            for (long[] chain : chains) {
                if (random.nextBoolean()) {
                    int held = random.nextInt(chain.length + 1);
                    tracker.stored("b" + b, java.util.Arrays.copyOf(chain, held), new long[0], 0);
                }
            }
        }

        // When / Then: every chain against every backend, and chains nobody holds
        int probes = 0;
        for (long[] chain : chains) {
            for (int b = 0; b < 4; b++) {
                assertThat(tracker.match("b" + b, chain)).isEqualTo(tracker.matchLinear("b" + b, chain));
                probes++;
            }
        }
        long[] unknown = RollingHashChain.of(BLOCK, random.ints(40, 0, 9).toArray());
        assertThat(tracker.match("b0", unknown)).isZero();
        assertThat(probes).isEqualTo(800);
    }

    @Test
    void shouldEvictLeastRecentlyUsedBlocksFromTheEndOfTheirChainsDownToTheCap() {
        // Given: an old chain of 6 blocks, then a new chain of 4 blocks
        long[] old = chain(1, 6);
        long[] recent = chain(2, 4);
        tracker.stored("a", old, new long[0], 0);
        tracker.stored("a", recent, new long[0], 0);

        // When: cap 7
        long dropped = tracker.evict(7, 0);

        // Then: 3 blocks of the old chain go, from its end; the recent chain is whole
        assertThat(dropped).isEqualTo(3);
        assertThat(tracker.match("a", old)).isEqualTo(3);
        assertThat(tracker.matchLinear("a", old)).isEqualTo(3);
        assertThat(tracker.match("a", recent)).isEqualTo(4);
    }

    @Test
    void shouldKeepPredictionsUntilEventsConfirmOrTheyExpire() {
        // Given: a routing decision predicted chain x on a; the engine confirms only its first 2 blocks
        long[] x = chain(3, 5);
        tracker.predicted("a", x);
        long afterPrediction = tracker.epoch();
        tracker.stored("a", java.util.Arrays.copyOf(x, 2), new long[0], 0);
        assertThat(tracker.match("a", x)).as("predicted").isEqualTo(5);

        // When: upkeep drops predictions made before now
        tracker.evict(1000, afterPrediction + 1);

        // Then: the confirmed blocks stay
        assertThat(tracker.match("a", x)).isEqualTo(2);
    }

    @Test
    void shouldMapEngineIdsForRemovalAndDropABackendOnClearAndRemove() {
        // Given
        long[] x = chain(4, 3);
        tracker.stored("a", x, new long[]{101, 102, 103}, 0);
        tracker.stored("b", x, new long[]{201, 202, 203}, 0);
        assertThat(tracker.entry(x[0])).containsOnlyKeys("a", "b");

        // When: a evicts its last block; b clears
        assertThat(tracker.removed("a", new long[]{103, 999})).isEqualTo(1);
        tracker.cleared("b");

        // Then
        assertThat(tracker.match("a", x)).isEqualTo(2);
        assertThat(tracker.match("b", x)).isZero();
        assertThat(tracker.idOf("a", 102)).isEqualTo(x[1]);
        assertThat(tracker.depthOf("a", x[1])).isEqualTo(1);
        assertThat(tracker.remove("a")).isTrue();
        assertThat(tracker.matches(x, null)).isEqualTo(Map.of("b", 0));
    }

    @Test
    void shouldResetABackendThatRestarted() {
        // Given
        tracker.order("a", 40);
        tracker.stored("a", chain(5, 3), new long[0], 0);

        // When
        EventOrder.Verdict verdict = tracker.order("a", 0);

        // Then
        assertThat(verdict).isEqualTo(EventOrder.Verdict.RESTART);
        assertThat(tracker.sizes()).containsEntry("a", 0);
    }

    private static long[] chain(int seed, int blocks) {
        return RollingHashChain.of(BLOCK, new Random(seed).ints(blocks * BLOCK, 0, 50_000).toArray());
    }
}
