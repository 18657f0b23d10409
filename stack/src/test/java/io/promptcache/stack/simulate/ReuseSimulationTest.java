package io.promptcache.stack.simulate;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.Policy;
import io.promptcache.gc.policy.ReusePolicy;
import io.promptcache.schema.node.NodeLiveness;

import static org.assertj.core.api.Assertions.assertThat;

/** The learned policy through the GC's code, on traffic where telling what comes back from what does not pays. */
class ReuseSimulationTest {

    private static final Policy POLICY = new Policy(0.9, 0.8, 7L * 86_400_000, 0, Map.of(),
            new NodeLiveness(3, 300_000), true);
    private static final long BLOCK = 16_384;

    @Test
    void shouldHitMoreThanLruWhenMostPromptsAreOneShot() {
        // Given: 40 minutes at 3 requests/s, 80 % one-shot prompts (a shared system prompt and 1-30 blocks of their
        // own) and 20 % conversations that come back after a think time (docs/benchmarks/eviction/workloads.py)
        List<long[]> prompts = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        generate(prompts, times, 0.8, false);

        // When: both policies replay it in 2,500 blocks
        double lru = hitRatio(EvictionPolicy.LRU, prompts, times, 2500);
        double reuse = hitRatio(new ReusePolicy(), prompts, times, 2500);
        BlockLru blocks = new BlockLru(2500);
        long hit = 0;
        long total = 0;
        for (long[] p : prompts) {
            hit += blocks.request(p);
            total += p.length;
        }

        // Then: LRU over objects is block LRU; reuse keeps the conversations and lets the one-shot prompts go
        assertThat(lru).isCloseTo((double) hit / total, org.assertj.core.data.Percentage.withPercentage(2));
        assertThat(reuse).as("reuse %.4f vs lru %.4f", reuse, lru).isGreaterThan(1.1 * lru);
    }

    @Test
    void shouldTrimTheDeadTailsOfConversationsThatHashTheirLastBlockAgain() {
        // Given: conversations only, each turn ending with a partial block that the next turn hashes again (as in
        // Mooncake's traces): every turn's object is read on by the next one, but for its last block
        List<long[]> prompts = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        generate(prompts, times, 0, true);

        // When: both policies replay it in 2,500 blocks
        PolicySimulation[] runs = new PolicySimulation[2];
        double lru = hitRatio(EvictionPolicy.LRU, prompts, times, 2500, runs, 0);
        double reuse = hitRatio(new ReusePolicy(), prompts, times, 2500, runs, 1);

        // Then: LRU evicts whole turns; reuse trims the dead tails (the turns stay LIVE, holding what their
        // continuations read) and hits more, having written nothing twice (1.054x when this test was written)
        assertThat(runs[0].trims()).isZero();
        assertThat(runs[1].trims()).isPositive();
        assertThat(runs[1].writeAmplification()).isLessThanOrEqualTo(1.0);
        assertThat(reuse).as("reuse %.4f vs lru %.4f", reuse, lru).isGreaterThan(1.03 * lru);
    }

    private static double hitRatio(EvictionPolicy eviction, List<long[]> prompts, List<Long> times, long blocks) {
        return hitRatio(eviction, prompts, times, blocks, new PolicySimulation[1], 0);
    }

    private static double hitRatio(EvictionPolicy eviction, List<long[]> prompts, List<Long> times, long blocks,
            PolicySimulation[] runs, int run) {
        PolicySimulation sim = new PolicySimulation(POLICY, eviction, blocks * BLOCK, BLOCK, 0, 0);
        runs[run] = sim;
        long hit = 0;
        long total = 0;
        for (int i = 0; i < prompts.size(); i++) {
            hit += sim.request(times.get(i), prompts.get(i));
            total += prompts.get(i).length;
        }
        assertThat(sim.refusals()).isZero();
        return (double) hit / total;
    }

    /**
     * workloads.py's {@code oneshot} (40 minutes of it) with {@code oneShots} of one-shot prompts; {@code partial}:
     * every prompt ends with a block of its own that the next turn replaces (a partial block hashed again).
     */
    private static void generate(List<long[]> prompts, List<Long> times, double oneShots, boolean partial) {
        SplittableRandom random = new SplittableRandom(1);
        long[] next = {1};
        List<long[]> systems = new ArrayList<>();
        for (int s = 0; s < 30; s++) {
            systems.add(blocks(next, random.nextInt(1, 5)));
        }
        record Turn(double at, long[] prompt, int left) {
        }
        PriorityQueue<Turn> due = new PriorityQueue<>((a, b) -> Double.compare(a.at(), b.at()));
        double end = 40 * 60_000;
        for (double t = 0; t < end;) {
            t += -Math.log(1 - random.nextDouble()) * 1000 / 3.0;
            long[] system = systems.get(Math.min(systems.size() - 1, (int) Math.floor(Math.pow(random.nextDouble(),
                    3) * systems.size()))); // the first system prompts the most used
            if (random.nextDouble() < oneShots) {
                due.add(new Turn(t, concat(system, blocks(next, random.nextInt(1, 31))), 0));
            } else {
                due.add(new Turn(t, concat(system, blocks(next, random.nextInt(2, 17))),
                        (int) Math.min(39, -Math.log(1 - random.nextDouble()) * 2.5)));
            }
        }
        while (!due.isEmpty()) {
            Turn turn = due.poll();
            if (turn.at() >= end) {
                continue;
            }
            prompts.add(turn.prompt());
            times.add((long) turn.at());
            if (turn.left() > 0) {
                double think = 120_000 * Math.exp(random.nextGaussian());
                long[] previous = partial ? Arrays.copyOf(turn.prompt(), turn.prompt().length - 1) : turn.prompt();
                due.add(new Turn(turn.at() + think, concat(previous, blocks(next, random.nextInt(1, 9))),
                        turn.left() - 1));
            }
        }
    }

    private static long[] blocks(long[] next, int n) {
        long[] b = new long[n];
        for (int i = 0; i < n; i++) {
            b[i] = next[0]++;
        }
        return b;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] c = new long[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
