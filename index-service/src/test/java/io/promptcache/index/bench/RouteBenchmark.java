package io.promptcache.index.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import io.promptcache.index.routing.BlockTracker;
import io.promptcache.index.routing.RoutingPolicy;
import io.promptcache.schema.hash.RollingHashChain;

/**
 * Route decisions in-process at 8k tokens with about 1M tracked blocks over 8 backends ({@link RouteWorkload}): the
 * block tracker (hash the prompt's chain, binary search per backend, decide) against a token radix tree
 * (SGLang-style, {@link TokenRadixTree}) on the same prompts, deciding with the same policy. Dry decisions (nothing
 * recorded), so every iteration sees the same state.
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx6g", "-XX:+UseParallelGC"})
public class RouteBenchmark {

    static final int BLOCK = RouteWorkload.BLOCK;
    private static final int BACKENDS = RouteWorkload.BACKENDS;

    private final RoutingPolicy policy = new RoutingPolicy(0.3, 1.25);
    private final List<String> backends = new ArrayList<>();
    private BlockTracker tracker;
    private TokenRadixTree radix;
    private int[][] requests;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        RouteWorkload workload = new RouteWorkload();
        for (int b = 0; b < BACKENDS; b++) {
            backends.add("backend-" + b);
        }
        long before = usedHeap();
        tracker = new BlockTracker(BLOCK);
        for (int p = 0; p < workload.prompts.length; p++) {
            tracker.stored(RouteWorkload.backend(p), RollingHashChain.of(BLOCK, workload.prompts[p]), new long[0], 0);
        }
        long afterTracker = usedHeap();
        radix = new TokenRadixTree();
        for (int p = 0; p < workload.prompts.length; p++) {
            radix.insert(workload.prompts[p], p % BACKENDS);
        }
        long afterRadix = usedHeap();
        System.out.printf("%nheap retained: block tracker %d MiB, token radix tree %d MiB%n",
                (afterTracker - before) >> 20, (afterRadix - afterTracker) >> 20);
        requests = workload.requests;
        System.out.printf("tracked blocks: %s%n", tracker.sizes());
    }

    private static long usedHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }

    @Benchmark
    public RoutingPolicy.Decision blockTracker() {
        int[] request = requests[next++ & (requests.length - 1)];
        long[] chain = RollingHashChain.of(BLOCK, request);
        Map<String, Integer> matches = tracker.matches(chain, backends);
        List<RoutingPolicy.Candidate> candidates = new ArrayList<>(BACKENDS);
        for (String backend : backends) {
            candidates.add(new RoutingPolicy.Candidate(backend, matches.get(backend), 0));
        }
        return policy.decide(candidates, chain.length);
    }

    @Benchmark
    public RoutingPolicy.Decision radixTree() {
        int[] request = requests[next++ & (requests.length - 1)];
        int[] matched = radix.match(request, BACKENDS);
        List<RoutingPolicy.Candidate> candidates = new ArrayList<>(BACKENDS);
        for (int b = 0; b < BACKENDS; b++) {
            candidates.add(new RoutingPolicy.Candidate(backends.get(b), matched[b] / BLOCK, 0));
        }
        return policy.decide(candidates, request.length / BLOCK);
    }

    /** The block tracker's cost without the decision: the prompt's chain alone (XXH3-64, 512 blocks). */
    @Benchmark
    public long[] chainOnly() {
        return RollingHashChain.of(BLOCK, requests[next++ & (requests.length - 1)]);
    }
}
