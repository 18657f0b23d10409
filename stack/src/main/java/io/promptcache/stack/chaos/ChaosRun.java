package io.promptcache.stack.chaos;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.bench.SyntheticWorkload;
import io.promptcache.stack.up.GraceWindow;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

/**
 * A chaos run: a stack of 2 storage nodes, 2 index replicas and 2 gc-processors, engines serving a synthetic
 * workload throughout, and one fault per round at a random moment ({@link Fault}, in turn). Each round checks the
 * invariants of its fault and the ones that hold always (no byte served wrong, no 500, every 503 with Retry-After,
 * no GET failing on a node that is up); the run ends with every replica answering the same for the last prompts
 * stored. The faults are {@link Faults}, the checks {@link Invariants}. Bounded: {@code rounds x round} plus restarts.
 */
public final class ChaosRun {

    /**
     * How the run goes: rounds, each this long, injecting {@code faults} in turn (round {@code r} the
     * {@code r % faults.size()}-th), targets and moments drawn from {@code seed}, engines in parallel.
     */
    public record Options(int rounds, Duration round, long seed, int concurrency, List<Fault> faults, double rate) {

        public Options {
            faults = List.copyOf(faults);
            if (rounds < 1 || round.toSeconds() < 15 || concurrency < 1 || faults.isEmpty() || rate < 0) {
                throw new IllegalArgumentException("a chaos run needs at least 1 round of at least 15 s, 1 engine and"
                        + " 1 fault, and a rate >= 0");
            }
        }
    }

    /**
     * The default pace of the engines, requests/s over all of them: what this 2-core machine serves with the GC
     * keeping up (closed loop, the GC fell ever further behind: docs/benchmarks.md, "Fault suite").
     */
    public static final double DEFAULT_RATE = 5;

    /**
     * Each node's capacity: the workload fills both nodes within about two minutes of a start (the first rounds), so
     * the GC evicts through every round after.
     */
    static final long NODE_CAPACITY = 16L << 20;
    /** The stack's grace window. */
    static final Duration GRACE = Duration.ofSeconds(5);

    private final Stack stack;
    private final Options options;
    private final PrintWriter out;
    private final Random random;
    private final Counts counts = new Counts();
    private final IndexApi api;
    private final String[] namespaces;
    private Engines engines;
    private Faults faults;
    private Invariants invariants;

    private ChaosRun(Stack stack, Options options, PrintWriter out) {
        this.stack = stack;
        this.options = options;
        this.out = out;
        this.random = new Random(options.seed());
        // an engine gives up on a GET that does not answer within 3 s (a paused node) and recomputes
        this.api = new IndexApi(options.concurrency() + 2, stack.info().apiKey(), Duration.ofSeconds(3));
        this.namespaces = new String[stack.info().index().size()];
    }

    /**
     * The stack a chaos run needs: 2 nodes (16 MiB, a 2 MiB RAM tier so most reads come from the disk the run
     * corrupts), 2 replicas, 2 gc-processors, SigV4 and an API key, a {@link #GRACE} grace window (every
     * service's {@code promptcache.grace}, as {@code up --grace} sets it); data (and logs) under
     * {@code dataDir}, or in a directory deleted at the end when it is null.
     */
    public static StackSpec stackSpec(Path home, Path dataDir) {
        return stackSpec(home, dataDir, 1);
    }

    /** As {@link #stackSpec(Path, Path)}, every object with {@code copies} copies (index {@code store.replicas}). */
    public static StackSpec stackSpec(Path home, Path dataDir, int copies) {
        return stackSpec(home, dataDir, NODE_CAPACITY, 2L << 20, Map.of("promptcache.index.store.replicas",
                Integer.toString(copies)), Map.of());
    }

    /**
     * The stack of a run that injects faults ({@code chaos}, {@code soak}): 2 nodes of {@code nodeCapacity} with a RAM
     * tier of {@code ramTier}, 2 replicas, 2 gc-processors, SigV4 and an API key that every service re-reads each
     * second (a key rotation takes a few), a {@link #GRACE} grace window; {@code index} and {@code gc} settings on top.
     */
    static StackSpec stackSpec(Path home, Path dataDir, long nodeCapacity, long ramTier, Map<String, String> index,
            Map<String, String> gc) {
        GraceWindow grace = new GraceWindow(GRACE);
        Map<String, String> indexSettings = new HashMap<>(index);
        indexSettings.put("promptcache.index.auth.reload-interval", "1s");
        indexSettings.put("promptcache.index.storage.reload-interval", "1s");
        Map<String, String> gcSettings = new HashMap<>(gc);
        gcSettings.put("promptcache.gc.storage.reload-interval", "1s");
        return new StackSpec(home, dataDir, 2, 2, 2, 0, 0, 0, nodeCapacity, null, grace.index(indexSettings),
                grace.node(Map.of("promptcache.storage.tier.ram-capacity-bytes", Long.toString(ramTier),
                        "promptcache.storage.auth.reload-interval", "1s")),
                grace.gc(gcSettings), true, Secrets.random(24));
    }

    /** Runs the rounds on a started stack; the rounds, then a last one with the final checks. */
    public static List<Round> run(Stack stack, Options options, PrintWriter out)
            throws InterruptedException, IndexApi.CallFailed {
        return new ChaosRun(stack, options, out).run();
    }

    private List<Round> run() throws InterruptedException, IndexApi.CallFailed {
        // 64-token blocks (prompts of 20-40): every store advertises each block's prefix, and with 16-token blocks
        // the GC of this 2-core machine fell ever further behind the engines (docs/benchmarks.md)
        SyntheticWorkload workload = new SyntheticWorkload(new SyntheticWorkload.Params(4, 1024, 256, 6, 32, 64, 64,
                options.rate(), options.seed()));
        List<String> replicas = stack.info().index();
        for (int r = 0; r < replicas.size(); r++) {
            namespaces[r] = api.namespace(replicas.get(r), "chaos-model", workload.blockSize());
        }
        engines = new Engines(replicas, namespaces, workload, api, counts);
        ReplicaChecks answers = new ReplicaChecks(replicas, namespaces, api, engines);
        faults = new Faults(stack, random, engines, counts, answers);
        GcLag gcLag = new GcLag(stack.info().bootstrap());
        invariants = new Invariants(stack, NODE_CAPACITY, engines, counts, gcLag, answers);
        engines.start(options.concurrency());
        List<Round> rounds = new ArrayList<>();
        try {
            Thread.sleep(10_000);
            for (int i = 0; i < options.rounds(); i++) {
                Round round = round(i + 1, options.faults().get(i % options.faults().size()));
                rounds.add(round);
                out.println(ChaosReport.line(round));
                out.flush();
            }
        } finally {
            engines.stop();
        }
        try {
            rounds.add(invariants.finalChecks(rounds.size() + 1));
        } finally {
            gcLag.close();
        }
        return rounds;
    }

    private Round round(int number, Fault fault) throws InterruptedException {
        Map<String, Long> before = counts.snapshot();
        long storedMark = engines.storedMark();
        long corruptAtStart = invariants.corruptReads();
        long start = System.nanoTime();
        Thread.sleep(1000 + random.nextInt((int) options.round().toMillis() / 3));
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        String target = faults.inject(fault, figures, violations, Counts.delta(before, counts.snapshot()));
        long left = options.round().toNanos() - (System.nanoTime() - start);
        if (left > 0) {
            Thread.sleep(left / 1_000_000);
        }
        Map<String, Long> delta = Counts.delta(before, counts.snapshot());
        long rotten = invariants.corruptReads() - corruptAtStart;
        invariants.afterRound(fault, target, delta, rotten, storedMark, figures, violations);
        return new Round(number, fault, target, figures, delta, violations);
    }
}
