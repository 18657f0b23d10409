package io.promptcache.stack.simulate;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.gc.budget.Policy;
import io.promptcache.gc.storage.NodeLiveness;

import static org.assertj.core.api.Assertions.assertThat;

class PolicySimulationTest {

    private static final Policy POLICY = new Policy(0.9, 0.8, 7L * 86_400_000, 0, Map.of(),
            new NodeLiveness(3, 300_000));

    @Test
    void shouldServeTheLongestStoredPrefixAndStoreWholePromptsOnPartialHits() {
        // Given: room for 100 blocks of 10 bytes
        PolicySimulation sim = new PolicySimulation(POLICY, 1000, 10, 0, 0);

        // Then: a miss stores the prompt; a longer prompt hits its prefix and is stored whole
        assertThat(sim.request(0, new long[]{1, 2, 3})).isZero();
        assertThat(sim.request(1, new long[]{1, 2, 3, 4})).isEqualTo(3);
        assertThat(sim.request(2, new long[]{1, 2, 3, 4, 5})).isEqualTo(4);
        assertThat(sim.liveBytes()).as("three objects, the two older superseded but live").isEqualTo(120);
    }

    @Test
    void shouldEvictSupersededObjectsFirstThenTheLeastRecentlyUsed() {
        // Given: room for 10 blocks (high watermark 9, low 8); a conversation of 3 turns, then an unrelated prompt
        PolicySimulation sim = new PolicySimulation(POLICY, 100, 10, 0, 0);
        sim.request(0, new long[]{1, 2});
        sim.request(1, new long[]{1, 2, 3});
        sim.request(2, new long[]{1, 2, 3, 4});

        // When: 9 blocks live -> no eviction yet; then 3 more blocks: over the high watermark
        assertThat(sim.liveBytes()).isEqualTo(90);
        sim.request(3, new long[]{7, 8, 9});

        // Then: the superseded turns went first (5 blocks), the newest conversation state and the new prompt stay
        assertThat(sim.liveBytes()).isEqualTo(70);
        assertThat(sim.request(4, new long[]{1, 2, 3, 4, 5})).isEqualTo(4);
        assertThat(sim.request(5, new long[]{7, 8, 9})).isEqualTo(3);
    }
}
