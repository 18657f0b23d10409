package io.promptcache.index.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.promptcache.index.routing.BlockTracker;
import io.promptcache.schema.hash.RollingHashChain;

import static org.assertj.core.api.Assertions.assertThat;

/** The routing benchmark compares like with like: the radix tree and the block tracker find the same matches. */
class TokenRadixTreeTest {

    @Test
    void shouldMatchWhatTheBlockTrackerMatchesInCompleteBlocks() {
        // Given: 300 prompts over 5 shared system prompts, each held by one of 4 backends, in both structures
        Random random = new Random(9);
        int[][] system = new int[5][];
        for (int s = 0; s < 5; s++) {
            system[s] = random.ints(64 + random.nextInt(64), 0, 1000).toArray();
        }
        BlockTracker tracker = new BlockTracker(16);
        TokenRadixTree radix = new TokenRadixTree();
        List<String> backends = List.of("b0", "b1", "b2", "b3");
        int[][] prompts = new int[300][];
        for (int p = 0; p < prompts.length; p++) {
            int[] prompt = Arrays.copyOf(system[random.nextInt(5)], 200 + random.nextInt(400));
            for (int t = 128; t < prompt.length; t++) {
                prompt[t] = random.nextInt(1000);
            }
            prompts[p] = prompt;
            tracker.stored(backends.get(p % 4), RollingHashChain.of(16, prompt), new long[0], 0);
            radix.insert(prompt, p % 4);
        }

        // When / Then: requests sharing part of a held prompt, or only a system prompt
        for (int r = 0; r < 500; r++) {
            int[] base = prompts[random.nextInt(prompts.length)];
            int[] request = Arrays.copyOf(base, random.nextInt(base.length + 50) + 1);
            for (int t = Math.min(base.length, random.nextInt(base.length)); t < request.length; t++) {
                request[t] = random.nextInt(1000);
            }
            Map<String, Integer> blocks = tracker.matches(RollingHashChain.of(16, request), backends);
            int[] tokens = radix.match(request, 4);
            for (int b = 0; b < 4; b++) {
                assertThat(tokens[b] / 16).as("request %d, backend %d", r, b).isEqualTo(blocks.get("b" + b));
            }
        }
    }
}
