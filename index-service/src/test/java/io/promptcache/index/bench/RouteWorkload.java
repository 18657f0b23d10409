package io.promptcache.index.bench;

import java.util.Arrays;
import java.util.Random;

/**
 * The routing benchmarks' workload: 2,216 prompts of 8,192 tokens (one of 20 system prompts of 1,024 tokens, then
 * their own tokens), prompt {@code p} held by backend {@code p % 8}: 1,003,008 tracked blocks of 16 tokens. 1,024
 * requests of 8,192 tokens: half a held prompt's first 6,144 tokens plus 2,048 new ones, half a new prompt on a
 * known system prompt.
 */
final class RouteWorkload {

    static final int BLOCK = 16;
    static final int TOKENS = 8192;
    static final int BACKENDS = 8;
    static final int PROMPTS = 2216;

    final int[][] prompts = new int[PROMPTS][];
    final int[][] requests = new int[1024][];

    RouteWorkload() {
        Random random = new Random(42);
        int[][] system = new int[20][];
        for (int s = 0; s < system.length; s++) {
            system[s] = random.ints(1024, 0, 128_000).toArray();
        }
        for (int p = 0; p < PROMPTS; p++) {
            prompts[p] = conversation(system[random.nextInt(system.length)], random);
        }
        for (int r = 0; r < requests.length; r++) {
            if (r % 2 == 0) {
                int[] request = Arrays.copyOf(prompts[random.nextInt(PROMPTS)], TOKENS);
                for (int t = 6144; t < TOKENS; t++) {
                    request[t] = random.nextInt(128_000);
                }
                requests[r] = request;
            } else {
                requests[r] = conversation(system[random.nextInt(system.length)], random);
            }
        }
    }

    static String backend(int prompt) {
        return "backend-" + prompt % BACKENDS;
    }

    private static int[] conversation(int[] system, Random random) {
        int[] prompt = Arrays.copyOf(system, TOKENS);
        for (int t = system.length; t < TOKENS; t++) {
            prompt[t] = random.nextInt(128_000);
        }
        return prompt;
    }
}
