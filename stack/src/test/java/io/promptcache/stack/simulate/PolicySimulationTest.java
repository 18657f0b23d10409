package io.promptcache.stack.simulate;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.Policy;
import io.promptcache.schema.node.NodeLiveness;

import static org.assertj.core.api.Assertions.assertThat;

class PolicySimulationTest {

    private static final Policy POLICY = new Policy(0.9, 0.8, 7L * 86_400_000, 0, Map.of(),
            new NodeLiveness(3, 300_000));

    @Test
    void shouldServeTheLongestStoredPrefixAndStoreOnlyTheMissedBlocksOnPartialHits() {
        // Given: room for 100 blocks of 10 bytes
        PolicySimulation sim = new PolicySimulation(POLICY, EvictionPolicy.LRU, 1000, 10, 0, 0);

        // Then: a miss stores the prompt; a longer prompt hits its prefix and stores a continuation of it
        assertThat(sim.request(0, new long[]{1, 2, 3})).isZero();
        assertThat(sim.request(1, new long[]{1, 2, 3, 4})).isEqualTo(3);
        assertThat(sim.request(2, new long[]{1, 2, 3, 4, 5})).isEqualTo(4);
        assertThat(sim.liveBytes()).as("5 blocks: each turn wrote only its new block").isEqualTo(50);
        assertThat(sim.writeAmplification()).isEqualTo(1.0);
    }

    @Test
    void shouldServeTheKeysOfAnEvictedTurnFromTheTurnThatSharesItsBytes() {
        // Given: objects expire after 10 ms unused; turn 1 (3 blocks), turn 2 continuing it (advertises only block 4)
        Policy ttl = new Policy(0.9, 0.8, 10, 0, Map.of(), new NodeLiveness(3, 300_000));
        PolicySimulation sim = new PolicySimulation(ttl, EvictionPolicy.LRU, 1000, 10, 0, 0);
        sim.request(0, new long[]{1, 2, 3});
        assertThat(sim.request(5, new long[]{1, 2, 3, 4})).isEqualTo(3);
        assertThat(sim.request(12, new long[]{1, 2, 3, 4})).isEqualTo(4);

        // When: turn 1 expires (unused since 5), turn 2 does not (used at 12)
        sim.request(16, new long[]{9});

        // Then: turn 1's prompt still hits all 3 blocks, served by turn 2
        assertThat(sim.request(17, new long[]{1, 2, 3})).isEqualTo(3);
        assertThat(sim.liveBytes()).as("turn 2's 4 blocks and block 9").isEqualTo(50);
    }

    @Test
    void shouldEvictTheLeastRecentlyUsedBytesTailFirstAsABlockLruWould() {
        // Given: room for 10 blocks (high watermark 9, low 8); a conversation of 3 turns (4 blocks: the turns share
        // their bytes), then an unrelated prompt
        PolicySimulation sim = new PolicySimulation(POLICY, EvictionPolicy.LRU, 100, 10, 0, 0);
        sim.request(0, new long[]{1, 2});
        sim.request(1, new long[]{1, 2, 3});
        sim.request(2, new long[]{1, 2, 3, 4});
        sim.request(3, new long[]{7, 8, 9});
        assertThat(sim.liveBytes()).isEqualTo(70);

        // When: 3 more blocks: over the high watermark
        sim.request(4, new long[]{10, 11, 12});

        // Then: the conversation's blocks are the least recently used; its first turn frees nothing while the others
        // read it, so its last turn goes (block 4), then its second (block 3): down to 8 blocks, as a block LRU
        // evicting the conversation's tail would; its first turn still serves blocks 1-2
        assertThat(sim.liveBytes()).isEqualTo(80);
        assertThat(sim.request(5, new long[]{7, 8, 9})).isEqualTo(3);
        assertThat(sim.request(6, new long[]{1, 2, 3, 4, 5})).isEqualTo(2);
    }

    @Test
    void shouldFillTheNodeWithLiveObjectsAndDeleteTheLeastRecentlyUsedCandidateForAStore() {
        // Given: room for 10 blocks on a node that reclaims on demand; three 3-block prompts (9 blocks live), the
        // first one used again last
        Policy reclaiming = new Policy(0.9, 0.8, 7L * 86_400_000, 0, Map.of(), new NodeLiveness(3, 300_000), true);
        PolicySimulation sim = new PolicySimulation(reclaiming, EvictionPolicy.LRU, 100, 10, 0, 0);
        sim.request(0, new long[]{1, 2, 3});
        sim.request(1, new long[]{4, 5, 6});
        sim.request(2, new long[]{7, 8, 9});
        assertThat(sim.request(3, new long[]{1, 2, 3})).isEqualTo(3);
        assertThat(sim.liveBytes()).as("nothing tombstoned above the watermarks").isEqualTo(90);

        // When: a 2-block prompt needs room (11 blocks > 10)
        sim.request(4, new long[]{10, 11});

        // Then: only the least recently used object went, the node stays full of live objects, nothing refused
        assertThat(sim.liveBytes()).isEqualTo(80);
        assertThat(sim.refusals()).isZero();
        assertThat(sim.request(5, new long[]{1, 2, 3})).isEqualTo(3);
        assertThat(sim.request(6, new long[]{7, 8, 9})).isEqualTo(3);
        assertThat(sim.request(7, new long[]{4, 5, 6})).as("the least recently used went").isZero();
    }
}
