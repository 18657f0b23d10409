package io.promptcache.stack.chaos;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.bench.SyntheticWorkload;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

/**
 * A soak: the chaos stack run for hours with engines of three shapes (chat prompts of 64-token blocks; long prompts
 * of one-token blocks; prompts of large KV whose objects grow past a GiB), one fault per slot of
 * {@link Options#faultEvery} ({@link Fault#SOAK} in turn unless told). Each slot measures the chat engines in a window
 * before the fault and in one after it cleared (after a settle), checks the chaos invariants of its fault, and checks
 * that no object of the {@link Ledger} that is LIVE in {@code objects} is gone from its node ({@link LiveObjects}).
 * The run ends with chaos's final checks and a last check of every live object.
 */
public final class SoakRun {

    /**
     * How the soak goes.
     *
     * @param duration how long it injects faults (the final checks come after)
     * @param faultEvery one fault per slot this long
     * @param window the length of the windows compared before a fault and after it cleared
     * @param settle how long after a fault cleared the window after it begins
     * @param bound the longest any call of the chat and long-prompt engines may take (the large-KV engines' 4x)
     * @param largeKvBytesPerToken KV bytes a token of the large-KV engines; 0: none run
     */
    public record Options(Duration duration, Duration faultEvery, Duration window, Duration settle, List<Fault> faults,
            long seed, int concurrency, double rate, Duration nodePause, Duration gcOutage, Duration bound,
            boolean longPrompts, long largeKvBytesPerToken) {

        public Options {
            faults = List.copyOf(faults);
            if (faults.isEmpty() || concurrency < 1 || rate <= 0 || largeKvBytesPerToken < 0) {
                throw new IllegalArgumentException("a soak needs a fault, an engine, a rate > 0 and KV bytes >= 0");
            }
            if (faultEvery.compareTo(window.multipliedBy(2).plus(settle)) <= 0 || duration.compareTo(faultEvery) < 0) {
                throw new IllegalArgumentException("a fault slot (" + faultEvery + ") must exceed two windows and the "
                        + "settle (" + window.multipliedBy(2).plus(settle) + "), and the soak last one slot at least");
            }
        }
    }

    /** What the run found: the slots (then the final checks), the series of each engine group, the ledger's tally. */
    public record Result(List<Round> rounds, Map<String, List<Timeline.Window>> series, Map<String, Long> tally,
            int objects, long hits) {
    }

    /** How long after a suspect is found missing its record may take to become a tombstone (a node's reclaim). */
    private static final Duration SUSPECT_RECHECK = Duration.ofSeconds(60);
    /** The plot's resolution. */
    static final long STEP_MS = 60_000;
    /** A window after a fault is back to the one before when its block hit ratio is at least this share of it. */
    static final double HIT_RATIO_KEPT = 0.9;
    /** ... and its lookup p99 at most this multiple of the one before (or {@link #P99_SLACK_MS} more). */
    static final double P99_GROWTH = 2.0;
    static final double P99_SLACK_MS = 25;
    /**
     * Windows with fewer lookups compare nothing: a window lasts {@code --window} and, while it holds fewer, is
     * extended up to {@link #MAX_WINDOWS} windows (engines slow after a fault, a loaded machine).
     */
    static final long MIN_LOOKUPS = 20;
    static final int MAX_WINDOWS = 3;

    private final Stack stack;
    private final Options options;
    private final PrintWriter out;
    private final Random random;
    private final Counts counts = new Counts();
    private final Ledger ledger = new Ledger();
    private final Map<String, Timeline> timelines = new LinkedHashMap<>();
    private final List<Engines> groups = new ArrayList<>();
    private final List<IndexApi> apis = new ArrayList<>();

    private SoakRun(Stack stack, Options options, PrintWriter out) {
        this.stack = stack;
        this.options = options;
        this.out = out;
        this.random = new Random(options.seed());
    }

    /**
     * The soak's stack: chaos's ({@link ChaosRun#stackSpec}) with nodes of {@code nodeCapacity} (a 64 MiB RAM tier),
     * {@code copies} of every object, and the GC's orphan sweep every 15 s with {@code orphanGrace} (the index's
     * reservations expire within a third of it).
     */
    public static StackSpec stackSpec(Path home, Path dataDir, int copies, long nodeCapacity, Duration orphanGrace) {
        return ChaosRun.stackSpec(home, dataDir, nodeCapacity, 64L << 20, Map.of(
                "promptcache.index.store.replicas", Integer.toString(copies),
                "promptcache.index.store.reservation-expiry", orphanGrace.dividedBy(3).toMillis() + "ms"),
                Map.of("promptcache.gc.orphans.grace", orphanGrace.toMillis() + "ms",
                        "promptcache.gc.orphans.sweep-interval", "15s"));
    }

    public static Result run(Stack stack, Options options, PrintWriter out) throws InterruptedException,
            IndexApi.CallFailed {
        return new SoakRun(stack, options, out).run();
    }

    private Result run() throws InterruptedException, IndexApi.CallFailed {
        long start = System.currentTimeMillis();
        // chat: chaos's workload (64-token blocks, prompts of 20-40 blocks)
        Engines chat = group("chat", new SyntheticWorkload.Params(4, 1024, 256, 6, 32, 64, 64, options.rate(),
                options.seed()), options.concurrency(), Duration.ofSeconds(3), options.bound(), start);
        if (options.longPrompts()) {
            // long prompts of one-token blocks (SGLang's page): 18k-24k tokens, one request every 10 s
            group("long", new SyntheticWorkload.Params(2, 16_384, 2_048, 4, 4, 1, 64, 0.1, options.seed() + 1), 1,
                    Duration.ofSeconds(10), options.bound(), start);
        }
        if (options.largeKvBytesPerToken() > 0) {
            // large KV: an 8k-token system prompt, then turns of 4k tokens (at 64 KiB a token: 512 MiB, 768 MiB,
            // ... 1.25 GiB objects), one request every 3 minutes
            group("large-kv", new SyntheticWorkload.Params(1, 8_192, 4_096, 3, 2, 16, options.largeKvBytesPerToken(),
                    1.0 / 180, options.seed() + 2), 1, Duration.ofSeconds(120), options.bound().multipliedBy(4),
                    start);
        }
        ReplicaChecks answers = new ReplicaChecks(stack.info().index(), chat.namespaces(), apis.get(0), chat);
        Faults faults = new Faults(stack, random, chat, counts, answers, new Faults.Settings(options.nodePause(),
                options.gcOutage()), apis);
        LiveObjects live = new LiveObjects(stack, ledger);
        List<Round> rounds = new ArrayList<>();
        try (GcLag gcLag = new GcLag(stack.info().bootstrap())) {
            Invariants invariants = new Invariants(stack, stack.nodeCapacity(), chat,
                    counts, gcLag, answers);
            groups.forEach(g -> g.start(g == chat ? options.concurrency() : 1));
            try {
                // a warm-up before the first window: the services' JIT, the caches filling
                Thread.sleep(options.settle().plus(options.window()).toMillis());
                long end = start + options.duration().toMillis();
                for (int i = 0; System.currentTimeMillis() + options.faultEvery().toMillis() <= end + 1000; i++) {
                    Fault fault = options.faults().get(i % options.faults().size());
                    Round round = slot(i + 1, fault, faults, invariants, live, chat);
                    rounds.add(round);
                    out.println(ChaosReport.line(round));
                    out.flush();
                }
            } finally {
                for (Engines g : groups) {
                    g.stop();
                }
            }
            Round last = invariants.finalChecks(rounds.size() + 1);
            LiveObjects.Check check = live.check(SUSPECT_RECHECK);
            liveFigures(check, last.figures(), last.violations());
            rounds.add(last);
        }
        Map<String, List<Timeline.Window>> series = new LinkedHashMap<>();
        timelines.forEach((name, timeline) -> series.put(name, timeline.series(STEP_MS)));
        return new Result(rounds, series, live.tally(), ledger.size(), ledger.hits());
    }

    private Engines group(String name, SyntheticWorkload.Params params, int engines, Duration getTimeout,
            Duration bound, long start) throws IndexApi.CallFailed {
        IndexApi api = new IndexApi(engines + 2, stack.info().apiKey(), getTimeout);
        apis.add(api);
        SyntheticWorkload workload = new SyntheticWorkload(params);
        List<String> replicas = stack.info().index();
        String[] namespaces = new String[replicas.size()];
        for (int r = 0; r < replicas.size(); r++) {
            namespaces[r] = api.namespace(replicas.get(r), "soak-" + name, workload.blockSize());
        }
        Timeline timeline = new Timeline(start);
        timelines.put(name, timeline);
        Engines group = new Engines(name, replicas, namespaces, workload, api, counts, timeline, ledger, bound);
        groups.add(group);
        return group;
    }

    /**
     * One slot: a window, the fault, a settle, a window; the two windows of the chat engines compared; the fault's
     * invariants; every live object checked; then the rest of the slot.
     */
    private Round slot(int number, Fault fault, Faults faults, Invariants invariants, LiveObjects live, Engines chat)
            throws InterruptedException {
        long slotStart = System.currentTimeMillis();
        Map<String, Long> before = counts.snapshot();
        long storedMark = chat.storedMark();
        long corruptAtStart = invariants.corruptReads();
        Timeline timeline = timelines.get("chat");
        Timeline.Window windowBefore = window(timeline, slotStart);
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        long injected = System.currentTimeMillis();
        figures.put("injectedAtS", (injected - timeline.startMs()) / 1000);
        String target = faults.inject(fault, figures, violations, Counts.delta(before, counts.snapshot()));
        long cleared = System.currentTimeMillis();
        figures.put("clearedAfterMs", cleared - injected);
        Thread.sleep(options.settle().toMillis());
        long afterFrom = System.currentTimeMillis();
        Timeline.Window windowAfter = window(timeline, afterFrom);
        figures.put("windowAfterS", (System.currentTimeMillis() - afterFrom) / 1000);
        List<String> notBack = new ArrayList<>();
        recovered(windowBefore, windowAfter, figures, notBack);
        if (!notBack.isEmpty()) {
            // not back in the first window after the settle: a second one; broken only if not back in it either (on
            // a machine the services share, a restarted one's catching up shows in the others' p99 for a while)
            figures.put("notBackInFirstWindow", notBack);
            Map<String, Object> second = new LinkedHashMap<>();
            notBack = new ArrayList<>();
            recovered(windowBefore, window(timeline, System.currentTimeMillis()), second, notBack);
            figures.put("secondWindowAfter", second.get("after"));
        }
        violations.addAll(notBack);
        Map<String, Long> delta = Counts.delta(before, counts.snapshot());
        long rotten = invariants.corruptReads() - corruptAtStart;
        invariants.afterRound(fault, target, delta, rotten, storedMark, figures, violations);
        if (fault == Fault.GC_OUTAGE) {
            orphanFigures(figures);
        }
        liveFigures(live.check(SUSPECT_RECHECK), figures, violations);
        long left = slotStart + options.faultEvery().toMillis() - System.currentTimeMillis();
        if (left > 0) {
            Thread.sleep(left);
        }
        return new Round(number, fault, target, figures, delta, violations);
    }

    /** The chat engines' window from {@code from}: {@code --window} long, longer while it holds too few lookups. */
    private Timeline.Window window(Timeline timeline, long from) throws InterruptedException {
        long step = options.window().toMillis();
        Thread.sleep(step);
        Timeline.Window window = timeline.window(from, System.currentTimeMillis());
        for (int extended = 1; extended < MAX_WINDOWS && window.lookups() < MIN_LOOKUPS; extended++) {
            Thread.sleep(step);
            window = timeline.window(from, System.currentTimeMillis());
        }
        return window;
    }

    /** The window after a fault cleared against the one before it: hit ratio and lookup p99 back to their level. */
    static void recovered(Timeline.Window before, Timeline.Window after, Map<String, Object> figures,
            List<String> violations) {
        figures.put("before", describe(before));
        figures.put("after", describe(after));
        if (before.lookups() < MIN_LOOKUPS || after.lookups() < MIN_LOOKUPS) {
            violations.add("too few lookups to compare the windows before and after the fault (" + before.lookups()
                    + ", " + after.lookups() + "): the engines did not run");
            return;
        }
        if (after.blockHitRatio() < HIT_RATIO_KEPT * before.blockHitRatio()) {
            violations.add(String.format(Locale.ROOT, "block hit ratio not back after the fault: %.3f, %.3f before",
                    after.blockHitRatio(), before.blockHitRatio()));
        }
        if (after.lookupP99() > Math.max(P99_GROWTH * before.lookupP99(), before.lookupP99() + P99_SLACK_MS)) {
            violations.add(String.format(Locale.ROOT, "lookup p99 not back after the fault: %.1f ms, %.1f ms before",
                    after.lookupP99(), before.lookupP99()));
        }
    }

    private static String describe(Timeline.Window w) {
        return String.format(Locale.ROOT, "%d lookups, block hit %.3f, lookup p50/p99 %.1f/%.1f ms, store p50/p99 "
                + "%.1f/%.1f ms", w.lookups(), w.blockHitRatio(), w.lookupP50(), w.lookupP99(), w.storeP50(),
                w.storeP99());
    }

    /**
     * The orphan sweep's rounds since the gc-processors restarted, by outcome ({@code proven}: the book was proven
     * caught up with {@code objects}, proven orphans deleted; {@code book_behind}: nothing deleted), and what it
     * deleted: after an outage longer than the orphan grace, every object stored during it looked like an orphan.
     */
    private void orphanFigures(Map<String, Object> figures) {
        double proven = 0;
        double behind = 0;
        double deleted = 0;
        for (var gc : stack.gcs()) {
            var metrics = Waits.metrics(gc);
            proven += metrics.sum("promptcache_gc_orphan_rounds_total", Map.of("outcome", "proven"));
            behind += metrics.sum("promptcache_gc_orphan_rounds_total", Map.of("outcome", "book_behind"));
            deleted += metrics.sum("promptcache_gc_orphans_deleted_total", Map.of());
        }
        figures.put("orphanRoundsProven", (long) proven);
        figures.put("orphanRoundsBookBehind", (long) behind);
        figures.put("orphansDeleted", (long) deleted);
    }

    private static void liveFigures(LiveObjects.Check check, Map<String, Object> figures, List<String> violations) {
        figures.put("liveObjectsChecked", check.live());
        figures.put("liveObjectsMissingAtFirst", check.suspects());
        figures.put("liveObjectsReclaimedAwaitingGc", check.reclaimedAwaitingGc().size());
        figures.put("liveObjectsLost", check.lost().size());
        figures.put("liveCheckMs", check.tookMs());
        if (!check.lost().isEmpty()) {
            violations.add(check.lost().size() + " objects LIVE in the objects topic are gone from their node "
                    + SUSPECT_RECHECK.toSeconds() + " s after they were found missing, and not deleted for room by "
                    + "it: " + check.lost().subList(0, Math.min(5, check.lost().size())));
        }
    }
}
