package io.promptcache.stack.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import io.promptcache.schema.hash.RollingHashChain;

/**
 * Prompts with shared prefixes, the way chat traffic looks: {@code groups} system prompts of {@code systemTokens};
 * {@code conversations} conversations in flight, each on one system prompt, each turn the previous prompt plus
 * {@code turnTokens} new tokens (the user's message and the answer); after {@code turns} turns a conversation ends
 * and a new one starts. The next request is a random conversation's next turn. Deterministic for a seed. Open loop
 * at {@code rate} requests/s, or closed loop (rate 0).
 */
public final class SyntheticWorkload implements Workload {

    /** Parameters; sizes in tokens. */
    public record Params(int groups, int systemTokens, int turnTokens, int turns, int conversations, int blockSize,
            long kvBytesPerToken, double rate, long seed) {

        /** The defaults of {@code bench}'s synthetic options (strings: picocli's defaults are), in one place. */
        static final String GROUPS = "8";
        static final String SYSTEM_TOKENS = "2048";
        static final String TURN_TOKENS = "512";
        static final String TURNS = "6";
        static final String CONVERSATIONS = "64";
        static final String BLOCK_SIZE = "16";
        static final String KV_BYTES_PER_TOKEN = "256";

        public Params {
            if (groups < 1 || systemTokens < 0 || turnTokens < 1 || turns < 1 || conversations < 1
                    || blockSize < 1 || kvBytesPerToken < 1 || rate < 0) {
                throw new IllegalArgumentException("synthetic workload: groups, turn tokens, turns, conversations, "
                        + "block size and KV bytes per token must be positive, rate and system tokens >= 0");
            }
        }

        /** {@code bench}'s default synthetic workload, closed loop, with {@code seed}. */
        static Params defaults(long seed) {
            return new Params(Integer.parseInt(GROUPS), Integer.parseInt(SYSTEM_TOKENS), Integer.parseInt(TURN_TOKENS),
                    Integer.parseInt(TURNS), Integer.parseInt(CONVERSATIONS), Integer.parseInt(BLOCK_SIZE),
                    Long.parseLong(KV_BYTES_PER_TOKEN), 0, seed);
        }
    }

    private final Params params;
    private final SplittableRandom random;
    private final int[][] systemPrompts;
    private final List<Conversation> active = new ArrayList<>();
    private long issued;

    private static final class Conversation {

        final int[] system;
        final long seed;
        int turn;

        Conversation(int[] system, long seed) {
            this.system = system;
            this.seed = seed;
        }
    }

    public SyntheticWorkload(Params params) {
        this.params = params;
        this.random = new SplittableRandom(params.seed());
        this.systemPrompts = new int[params.groups()][];
        for (int g = 0; g < params.groups(); g++) {
            systemPrompts[g] = tokens(new SplittableRandom(params.seed() * 31 + g), params.systemTokens());
        }
        for (int c = 0; c < params.conversations(); c++) {
            active.add(newConversation());
        }
    }

    private Conversation newConversation() {
        return new Conversation(systemPrompts[random.nextInt(systemPrompts.length)], random.nextLong());
    }

    @Override
    public synchronized BenchRequest next() {
        int pick = random.nextInt(active.size());
        Conversation conversation = active.get(pick);
        conversation.turn++;
        int[] prompt = prompt(conversation);
        if (conversation.turn >= params.turns()) {
            active.set(pick, newConversation());
        }
        long due = params.rate() > 0 ? (long) (issued * 1000 / params.rate()) : -1;
        issued++;
        return new BenchRequest(due, prompt, RollingHashChain.of(params.blockSize(), prompt), prompt.length);
    }

    private int[] prompt(Conversation c) {
        int[] prompt = new int[c.system.length + c.turn * params.turnTokens()];
        System.arraycopy(c.system, 0, prompt, 0, c.system.length);
        int[] own = tokens(new SplittableRandom(c.seed), c.turn * params.turnTokens());
        System.arraycopy(own, 0, prompt, c.system.length, own.length);
        return prompt;
    }

    private static int[] tokens(SplittableRandom random, int n) {
        int[] tokens = new int[n];
        for (int i = 0; i < n; i++) {
            tokens[i] = random.nextInt(128_000);
        }
        return tokens;
    }

    @Override
    public int blockSize() {
        return params.blockSize();
    }

    @Override
    public long bytesPerBlock() {
        return params.blockSize() * params.kvBytesPerToken();
    }

    @Override
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("workload", "synthetic");
        d.put("params", params);
        return d;
    }
}
