package io.promptcache.stack.chaos;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.promptcache.devservices.testing.ServiceProcess;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.SharedPiece;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.bench.SyntheticWorkload;
import io.promptcache.stack.status.Metrics;
import io.promptcache.stack.status.TopicSnapshot;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackInfo;
import io.promptcache.stack.up.StackSpec;

/**
 * A chaos run: a stack of 2 storage nodes, 2 index replicas and 2 gc-processors, engines serving a synthetic
 * workload throughout, and one fault per round at a random moment ({@link Fault}, in turn). Each round checks the
 * invariants of its fault and the ones that hold always (no byte served wrong, no 500, every 503 with Retry-After,
 * no GET failing on a node that is up); the run ends with every replica answering the same for the last prompts
 * stored. Bounded: {@code rounds x round} plus restarts.
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
    /** Nodes heartbeat every second (the stack's setting); the index calls a node silent after 3 intervals. */
    private static final Duration SILENT_AFTER = Duration.ofSeconds(6);
    private static final Duration READY = Duration.ofSeconds(180);
    private static final int AGREEMENT_SAMPLE = 50;
    /**
     * How long a restarted replica may take to answer like the others once ready: it catches up with what was
     * written while it restored, on a machine the other services keep busy (how long it took is a figure).
     */
    private static final Duration AGREEMENT_WITHIN = Duration.ofSeconds(60);
    /** How long the gc-processors may take to catch up once the engines stopped. */
    private static final Duration GC_CATCH_UP = Duration.ofSeconds(90);
    /** How long past its grace window a tombstoned object may wait for its delete (phase two checks every second). */
    private static final Duration OVERDUE = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Stack stack;
    private final Options options;
    private final PrintWriter out;
    private final Random random;
    private final Counts counts = new Counts();
    private final IndexApi api;
    private final String[] namespaces;
    private Engines engines;
    private GcLag gcLag;

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
     * corrupts), 2 replicas, 2 gc-processors, SigV4 and an API key, a 5 s grace window; data (and logs) under
     * {@code dataDir}, or in a directory deleted at the end when it is null.
     */
    public static StackSpec stackSpec(Path home, Path dataDir) {
        return new StackSpec(home, dataDir, 2, 2, 2, 0, 0, 0, NODE_CAPACITY, null,
                Map.of("promptcache.index.store.tombstone-grace", "5s"),
                Map.of("promptcache.storage.tier.ram-capacity-bytes", Long.toString(2L << 20)),
                Map.of("promptcache.gc.grace", "5s"), true, Secrets.random(24));
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
        gcLag = new GcLag(stack.info().bootstrap());
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
            rounds.add(finalChecks(rounds.size() + 1));
        } finally {
            gcLag.close();
        }
        return rounds;
    }

    private Round round(int number, Fault fault) throws InterruptedException {
        Map<String, Long> before = counts.snapshot();
        long storedMark = engines.storedMark();
        long corruptAtStart = corruptReads();
        long start = System.nanoTime();
        Thread.sleep(1000 + random.nextInt((int) options.round().toMillis() / 3));
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        String target = switch (fault) {
            case INDEX_KILL -> indexKill(figures, violations);
            case NODE_PAUSE -> nodeOut(figures, violations, false);
            case NODE_KILL -> nodeOut(figures, violations, true);
            case GC_KILL -> gcKill(figures);
            case BROKER_RESTART -> brokerRestart(figures, violations);
            case DISK_CORRUPTION -> corrupt(figures, Counts.delta(before, counts.snapshot()));
        };
        long left = options.round().toNanos() - (System.nanoTime() - start);
        if (left > 0) {
            Thread.sleep(left / 1_000_000);
        }
        Map<String, Long> delta = Counts.delta(before, counts.snapshot());
        long rotten = corruptReads() - corruptAtStart;
        switch (fault) {
            case INDEX_KILL -> {
                String killed = ".r" + target.substring("index-".length());
                long failed = delta.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("failed.lookup") && !e.getKey().endsWith(killed))
                        .mapToLong(Map.Entry::getValue).sum();
                figures.put("failedLookupsAtSurvivor", failed);
                if (failed > 0) {
                    violations.add(failed + " lookups failed at the surviving replica");
                }
                noneGone(delta, rotten, violations);
            }
            case GC_KILL -> {
                noneGone(delta, rotten, violations);
                usage(figures, violations);
            }
            case BROKER_RESTART -> {
                noneGone(delta, rotten, violations);
                storesKept(engines.storedSince(storedMark), figures, violations);
            }
            case DISK_CORRUPTION -> {
                figures.put("corruptReadsDetected", rotten);
                figures.put("hitsGoneAtGet", delta.getOrDefault("get.gone", 0L));
                figures.put("invalidated", delta.getOrDefault("invalidate.ok", 0L));
                if (rotten == 0) {
                    violations.add("no read of the corrupted files was detected (the round did not exercise them)");
                }
            }
            default -> {
            }
        }
        if (fault != Fault.NODE_PAUSE && fault != Fault.NODE_KILL) {
            // a full node's 507 (no room, no candidate left to delete) is back-pressure, answered 503 + Retry-After
            // with nothing advertised: a figure (it shows the GC behind), not a broken promise; any other failure of
            // a node that is up, or no node to place on, is
            long refused = delta.getOrDefault("code.StorageNodeFailed.other", 0L)
                    + delta.getOrDefault("code.NoStorageNode", 0L);
            figures.put("storesRefusedNodeFull", delta.getOrDefault("code.StorageNodeFailed.full", 0L));
            if (refused > 0) {
                violations.add(refused + " stores refused by a storage node that was up, or for want of one "
                        + "(StorageNodeFailed other than a full node's 507, or NoStorageNode)");
            }
        }
        figures.put("gcLagRecords", gcLag.records());
        delta.forEach((name, n) -> {
            if (name.startsWith("violation.")) {
                violations.add(n + " x " + name.substring("violation.".length()));
            } else if (name.startsWith("failed.lookup_5") && !name.startsWith("failed.lookup_503")) {
                violations.add(n + " lookups answered " + name.substring("failed.lookup_".length()));
            } else if (name.startsWith("failed.lookup_4")) {
                // the engines' namespace and key never change: a 4xx says a replica lost track of them
                violations.add(n + " lookups answered " + name.substring("failed.lookup_".length()));
            }
        });
        return new Round(number, fault, target, figures, delta, violations);
    }

    /**
     * An object deleted while a lookup still returned it: the GET of a hit answered 404, and not because the node
     * found its bytes rotten ({@code rotten}: the nodes' corrupt reads in the round, left by a corruption round).
     */
    private static void noneGone(Map<String, Long> delta, long rotten, List<String> violations) {
        long gone = delta.getOrDefault("get.gone", 0L) - rotten;
        if (gone > 0) {
            violations.add(gone + " hits whose object was gone at the GET (deleted while a lookup returned it)");
        }
    }

    private String indexKill(Map<String, Object> figures, List<String> violations) {
        int r = random.nextInt(stack.replicas().size());
        crashAndRestart(stack.replicas().get(r), figures);
        long t1 = System.nanoTime();
        int differ = disagreements(AGREEMENT_WITHIN);
        figures.put("promptsAnsweredDifferently", differ + "/" + AGREEMENT_SAMPLE);
        figures.put("agreedAfterMs", differ == 0 ? millisSince(t1) : -1);
        if (differ > 0) {
            violations.add(differ + " of the last " + AGREEMENT_SAMPLE + " stored prompts answered differently by the"
                    + " restarted replica " + AGREEMENT_WITHIN.toSeconds() + " s after it was ready");
        }
        return "index-" + (r + 1);
    }

    private String nodeOut(Map<String, Object> figures, List<String> violations, boolean kill) {
        int n = random.nextInt(stack.nodes().size());
        ServiceProcess node = stack.nodes().get(n);
        String id = stack.info().nodes().get(n).id();
        List<Engines.Stored> held = engines.recent(5, id);
        long t0 = System.nanoTime();
        if (kill) {
            engines.nodeDown(id);
            node.kill();
        } else {
            node.signal("STOP");
            engines.nodeDown(id);
        }
        sleep(SILENT_AFTER.toMillis());
        engines.nodeSilent(id);
        sleep(4000);
        if (kill) {
            node.launch();
            node.awaitReady(READY);
        } else {
            node.signal("CONT");
        }
        figures.put(kill ? "downMs" : "pausedMs", millisSince(t0));
        engines.nodeBack();
        long t1 = System.nanoTime();
        int back = held.size() - notLoaded(stack.info().index().get(0), held.stream().map(Engines.Stored::objectId)
                .toList(), Duration.ofSeconds(30)).size();
        figures.put("objectsServedAgain", back + "/" + held.size());
        figures.put("servedAgainAfterMs", millisSince(t1));
        if (!held.isEmpty() && back == 0) {
            violations.add("none of the " + held.size() + " objects stored on " + id + " before the fault is served "
                    + "after it returned");
        }
        return id;
    }

    private String gcKill(Map<String, Object> figures) {
        int g = random.nextInt(stack.gcs().size());
        crashAndRestart(stack.gcs().get(g), figures);
        return g == 0 ? "gc" : "gc-" + (g + 1);
    }

    /**
     * SIGKILL of the broker, 5 s down, restarted on its log and port; how long it was out, what the engines got
     * meanwhile, and how long until a store was answered 201 again are figures. Lookups must keep hitting meanwhile
     * (the index holds the PrefixMap; the nodes' heartbeats all stopped at once, which is no reason to call them
     * silent).
     */
    private String brokerRestart(Map<String, Object> figures, List<String> violations) throws InterruptedException {
        Map<String, Long> before = counts.snapshot();
        long t0 = System.nanoTime();
        stack.restartBroker(Duration.ofSeconds(5));
        figures.put("brokerOutMs", millisSince(t0));
        Map<String, Long> outage = Counts.delta(before, counts.snapshot());
        figures.put("whileOut", "lookups hit " + outage.getOrDefault("lookup.hit", 0L) + " / miss "
                + outage.getOrDefault("lookup.miss", 0L) + ", stores 201 " + outage.getOrDefault("store.201", 0L)
                + " / 503 " + outage.getOrDefault("store.503", 0L));
        long lookups = outage.getOrDefault("lookup.hit", 0L) + outage.getOrDefault("lookup.miss", 0L);
        if (lookups >= 20 && outage.getOrDefault("lookup.hit", 0L) == 0) {
            violations.add("no lookup hit while the broker was out (" + lookups + " lookups): the index must serve "
                    + "what it holds without Kafka");
        }
        long t1 = System.nanoTime();
        long stored = counts.get("store.201");
        boolean again = until(() -> counts.get("store.201") > stored, b -> b, AGREEMENT_WITHIN, 100);
        figures.put("storedAgainAfterMs", again ? millisSince(t1) : -1);
        return "kafka";
    }

    /**
     * Every store answered 201 or 200 in the round is in the {@code objects} topic (0 lost ADVERTISE: they are
     * published in one transaction) and, unless the GC has tombstoned it since, loads at every replica.
     */
    private void storesKept(List<Engines.Stored> stored, Map<String, Object> figures, List<String> violations) {
        List<String> ids = stored.stream().map(Engines.Stored::objectId).distinct().toList();
        // read_committed readers (the replicas, and this check) see nothing of a partition past a transaction left
        // open by the outage until the broker aborts it (transaction timeout, 10 s): polled for up to 30 s
        long t0 = System.nanoTime();
        Map<ObjectId, ObjectRecord> ledger = until(() -> TopicSnapshot.latest(stack.info().bootstrap(),
                Topics.OBJECTS), read -> absent(ids, read).isEmpty(), Duration.ofSeconds(30), 1000);
        List<String> lost = absent(ids, ledger);
        List<String> live = ids.stream().filter(id -> isLive(ledger.get(ObjectId.parse(id)))).toList();
        figures.put("storedInRound", ids.size());
        figures.put("lostAdvertise", lost.size());
        figures.put("allInTopicAfterMs", lost.isEmpty() ? millisSince(t0) : -1);
        if (!lost.isEmpty()) {
            violations.add(lost.size() + " of " + ids.size() + " objects answered 201/200 are not in the objects "
                    + "topic 30 s after the round: " + lost.subList(0, Math.min(5, lost.size())));
        }
        List<String> unseen = new ArrayList<>();
        for (String replica : stack.info().index()) {
            notLoaded(replica, live, Duration.ofSeconds(30)).forEach(id -> unseen.add(replica + " " + id));
        }
        // the GC may have tombstoned one since the topic was read: only one still LIVE now is a lost one
        Map<ObjectId, ObjectRecord> now = unseen.isEmpty()
                ? ledger
                : TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
        long invisible = unseen.stream().filter(u -> isLive(now.get(ObjectId.parse(u.substring(u.indexOf(' ') + 1)))))
                .count();
        figures.put("liveLoadedAtEveryReplica", (live.size() - unseen.size()) + "/" + live.size());
        if (invisible > 0) {
            violations.add(invisible + " objects LIVE in the objects topic do not load at a replica: " + unseen);
        }
    }

    /** Those of {@code ids} that have no record (not even a null) in {@code ledger}. */
    private static List<String> absent(List<String> ids, Map<ObjectId, ObjectRecord> ledger) {
        return ids.stream().filter(id -> !ledger.containsKey(ObjectId.parse(id))).toList();
    }

    private static boolean isLive(ObjectRecord record) {
        return record != null && record.getState() == ObjectState.OBJECT_STATE_LIVE;
    }

    private boolean loads(String replica, String objectId) {
        try {
            return api.load(replica, objectId).length > 0;
        } catch (IndexApi.CallFailed e) {
            return false;
        }
    }

    /** SIGKILL, 3 s down, relaunched on the same state dir; how long it took to be ready is a figure. */
    private static void crashAndRestart(ServiceProcess service, Map<String, Object> figures) {
        service.kill();
        sleep(3000);
        long t0 = System.nanoTime();
        service.launch();
        service.awaitReady(READY);
        figures.put("restartToReadyMs", millisSince(t0));
    }

    /** Every node's used bytes within its capacity, after the GC had the rest of the round. */
    private void usage(Map<String, Object> figures, List<String> violations) {
        for (ServiceProcess node : stack.nodes()) {
            double used = metrics(node).sum("promptcache_storage_used_bytes", Map.of());
            figures.put("usedOfCapacity:" + node.port(), String.format(java.util.Locale.ROOT, "%.2f",
                    used / NODE_CAPACITY));
            if (used > NODE_CAPACITY) {
                violations.add("a node uses " + (long) used + " bytes of its " + NODE_CAPACITY);
            }
        }
    }

    /** Rots the files of the node that served the most hits since the round began (so the round reads them). */
    private String corrupt(Map<String, Object> figures, Map<String, Long> sinceRoundBegan) {
        String id = stack.info().nodes().stream().map(StackInfo.Node::id)
                .max(java.util.Comparator.comparingLong(node -> sinceRoundBegan.getOrDefault("get.ok." + node, 0L)))
                .orElseThrow();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(stack.dataDir().resolve(id).resolve("objects"))) {
            files = new ArrayList<>(walk.filter(Files::isRegularFile).toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int flipped = 0;
        for (Path file : files) {
            flipped += flip(file) ? 1 : 0;
        }
        figures.put("bodyFilesCorrupted", flipped);
        return id;
    }

    /** Inverts the middle byte of {@code file}, as a failing disk would; false if it is empty or gone. */
    private static boolean flip(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long at = channel.size() / 2;
            ByteBuffer one = ByteBuffer.allocate(1);
            if (channel.size() == 0 || channel.read(one, at) != 1) {
                return false;
            }
            one.put(0, (byte) ~one.get(0)).rewind();
            channel.write(one, at);
            return true;
        } catch (IOException e) {
            return false; // deleted by the GC meanwhile
        }
    }

    private long corruptReads() {
        return stack.nodes().stream().mapToLong(node -> (long) metrics(node)
                .sum("promptcache_storage_corrupt_reads_total", Map.of())).sum();
    }

    /** After the engines stopped: every replica answers the last stored prompts the same, and hits them. */
    private Round finalChecks(int number) {
        Map<String, Object> figures = new LinkedHashMap<>();
        List<String> violations = new ArrayList<>();
        sleep(3000);
        int differ = disagreements(AGREEMENT_WITHIN);
        figures.put("promptsAnsweredDifferently", differ + "/" + AGREEMENT_SAMPLE);
        if (differ > 0) {
            violations.add(differ + " of the last " + AGREEMENT_SAMPLE + " stored prompts answered differently by "
                    + "the replicas");
        }
        gcCaughtUp(figures, violations);
        tombstonesCarriedOut(figures, violations);
        // a prompt whose object the GC evicted or an engine invalidated (a rotten read) may miss; one whose object is
        // LIVE in the objects topic must hit
        Map<ObjectId, ObjectRecord> ledger = TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
        long missing = 0;
        long retired = 0;
        for (Engines.Stored s : engines.recent(AGREEMENT_SAMPLE, null)) {
            if (!answers(s).get(0).hit()) {
                if (isLive(ledger.get(ObjectId.parse(s.objectId())))) {
                    missing++;
                } else {
                    retired++;
                }
            }
        }
        figures.put("storedPromptsMissing", missing + "/" + AGREEMENT_SAMPLE);
        // keys of LIVE objects a retraction meant for an older object nulled, put back by the GC (since each GC
        // process started)
        figures.put("prefixKeysRestored", stack.gcs().stream().mapToLong(gc -> (long) metrics(gc)
                .sum("promptcache_gc_prefixes_restored_total", Map.of())).sum());
        figures.put("storedPromptsRetired", retired + "/" + AGREEMENT_SAMPLE);
        if (missing > 0) {
            violations.add(missing + " of the last " + AGREEMENT_SAMPLE + " stored prompts miss though their object"
                    + " is LIVE in the objects topic");
        }
        return new Round(number, null, "all", figures, counts.snapshot(), violations);
    }

    /**
     * Once the engines stopped, the gc-processors catch up with everything written (within {@link #GC_CATCH_UP}):
     * a GC that stays behind would leave budgets unenforced. How long it took is a figure.
     */
    private void gcCaughtUp(Map<String, Object> figures, List<String> violations) {
        long t0 = System.nanoTime();
        long first = gcLag.records();
        figures.put("gcLagWhenEnginesStopped", first);
        long behind = caughtUp(first) ? first : until(gcLag::records, ChaosRun::caughtUp, GC_CATCH_UP, 1000);
        figures.put("gcCaughtUpAfterMs", caughtUp(behind) ? millisSince(t0) : -1);
        if (!caughtUp(behind)) {
            violations.add("the GC is still " + behind + " records behind " + GC_CATCH_UP.toSeconds()
                    + " s after the engines stopped");
        }
    }

    /** Caught up: a few records behind at most (transaction markers count as offsets until they are read past). */
    private static boolean caughtUp(long behind) {
        return behind >= 0 && behind < 100;
    }

    /**
     * Every tombstone of the run carried out: once the engines stopped, no object record may stay TOMBSTONED longer
     * than {@link #OVERDUE} past the end of its grace window (the GC deletes it on its node, then nulls the record;
     * polled for up to a minute while it catches up). The nodes' DELETE counts are figures: of a key that was there,
     * and of one that was not (a no-op: a repeat after a GC crash, or an object the node removed itself for room or
     * rot); counts restart with a node.
     */
    private void tombstonesCarriedOut(Map<String, Object> figures, List<String> violations) {
        List<ObjectId> overdue = until(() -> {
            Map<ObjectId, ObjectRecord> ledger = TopicSnapshot.latest(stack.info().bootstrap(), Topics.OBJECTS);
            long now = System.currentTimeMillis();
            figures.put("objectRecords", ledger.values().stream().filter(Objects::nonNull).count());
            // an evicted object whose bytes a LIVE continuation still reads keeps its record (TOMBSTONED) by design:
            // its keys resolve to that reader (docs/architecture.md, "Metadata in proportion to what a store adds")
            Set<String> read = ledger.values().stream().filter(r -> r != null
                    && r.getState() == ObjectState.OBJECT_STATE_LIVE).flatMap(r -> r.getSharedList().stream())
                    .map(SharedPiece::getObjectId).collect(Collectors.toSet());
            List<ObjectId> past = ledger.entrySet().stream().filter(e -> e.getValue() != null
                    && e.getValue().getState() == ObjectState.OBJECT_STATE_TOMBSTONED
                    && e.getValue().getTombstone().getDeleteAfterMs() < now - OVERDUE.toMillis()).map(Map.Entry::getKey)
                    .toList();
            figures.put("tombstonedReadByLive", past.stream().filter(id -> read.contains(id.toString())).count());
            return past.stream().filter(id -> !read.contains(id.toString())).toList();
        }, List::isEmpty, Duration.ofSeconds(60), 2000);
        figures.put("tombstonesOverdue", overdue.size());
        if (!overdue.isEmpty()) {
            violations.add(overdue.size() + " tombstoned objects not deleted " + OVERDUE.toSeconds() + " s after "
                    + "their grace window: " + overdue.subList(0, Math.min(5, overdue.size())));
        }
        double found = 0;
        double absent = 0;
        for (ServiceProcess node : stack.nodes()) {
            Metrics m = metrics(node);
            found += m.sum("promptcache_storage_deletes_total", Map.of("found", "true"));
            absent += m.sum("promptcache_storage_deletes_total", Map.of("found", "false"));
        }
        figures.put("nodeDeletes", (long) found + " removed / " + (long) absent + " of absent keys");
    }

    /** How many of the last stored prompts the replicas still answer differently after {@code within}. */
    private int disagreements(Duration within) {
        List<Engines.Stored> sample = engines.recent(AGREEMENT_SAMPLE, null);
        return until(() -> (int) sample.stream().filter(s -> answers(s).stream()
                .map(a -> a.hit() + "/" + a.objectId() + "/" + a.blocks()).distinct().count() > 1).count(),
                differ -> differ == 0, within, 1000);
    }

    /** The lookup of a stored prompt at every replica (a failed one counts as a miss). */
    private List<IndexApi.Lookup> answers(Engines.Stored stored) {
        List<IndexApi.Lookup> answers = new ArrayList<>();
        List<String> replicas = stack.info().index();
        for (int r = 0; r < replicas.size(); r++) {
            try {
                answers.add(api.lookup(replicas.get(r), namespaces[r], stored.request()));
            } catch (IndexApi.CallFailed e) {
                answers.add(new IndexApi.Lookup(false, 0, 0, null, null, e.kind(), null));
            }
        }
        return answers;
    }

    /** Those of {@code objectIds} that {@code replica} does not serve (a load through it) within {@code within}. */
    private List<String> notLoaded(String replica, List<String> objectIds, Duration within) {
        List<String> pending = new ArrayList<>(objectIds);
        return until(() -> {
            pending.removeIf(id -> loads(replica, id));
            return pending;
        }, List::isEmpty, within, 500);
    }

    /**
     * Reads {@code read} until what it returns is {@code done} or {@code within} is over, pausing {@code pauseMs}
     * between reads; the last value read.
     */
    private static <T> T until(Supplier<T> read, Predicate<T> done, Duration within, long pauseMs) {
        long deadline = System.nanoTime() + within.toNanos();
        T value = read.get();
        while (!done.test(value) && System.nanoTime() < deadline) {
            sleep(pauseMs);
            value = read.get();
        }
        return value;
    }

    private static Metrics metrics(ServiceProcess service) {
        try {
            HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(service.url("/q/metrics")))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return Metrics.parse(Objects.requireNonNullElse(response.body(), ""));
        } catch (IOException e) {
            return Metrics.parse("");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Metrics.parse("");
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
