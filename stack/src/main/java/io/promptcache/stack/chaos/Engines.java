package io.promptcache.stack.chaos;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;

import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.stack.bench.BenchRequest;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.bench.KvPayload;
import io.promptcache.stack.bench.Workload;

/**
 * Engines serving a workload through the faults, as the bench's do (lookup, one range GET of a hit checked byte
 * for byte, store of the blocks beyond it), counting every outcome in {@link Counts}. An engine whose index replica
 * does not answer (connection refused: the replica is down) fails over to the next one, as an engine with a list of
 * replicas does; every other failure is counted against the replica that gave it.
 */
final class Engines {

    /** A store answered 201 or 200: the object holding the prompt, where, and the prompt. */
    record Stored(String objectId, String node, BenchRequest request) {
    }

    private static final int RECENT = 512;

    private final List<String> replicas;
    private final String[] namespaces;
    private final Workload workload;
    private final IndexApi api;
    private final KvPayload payload;
    private final Counts counts;
    /** The name of this group of engines in the ledger (a soak runs several, each on its own workload). */
    private final String group;
    private final Timeline timeline;
    private final Ledger ledger;
    /** The longest a call may take (a lookup, a GET, a store); one that takes longer is a violation. Null: none. */
    private final Duration bound;
    private final Deque<Stored> recent = new ArrayDeque<>();
    /** How many stores were answered 201 or 200 so far (a mark for {@link #storedSince}). */
    private long storedCount;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean running;
    /** A node the run has stopped or killed, or null: a failed GET there is expected until the index sees it. */
    private volatile String downNode;
    /** A node the index must have seen go silent by now, or null: a lookup or store naming it is a violation. */
    private volatile String silentNode;
    private long turn;
    /** When the engines started: an open-loop workload's times count from it. */
    private volatile long started;

    Engines(List<String> replicas, String[] namespaces, Workload workload, IndexApi api, Counts counts) {
        this("chaos", replicas, namespaces, workload, api, counts, new Timeline(System.currentTimeMillis()),
                new Ledger(), null);
    }

    /**
     * Engines named {@code group} in {@code ledger}, recording what they see in {@code timeline}, each call held to
     * {@code bound} (null: none).
     */
    Engines(String group, List<String> replicas, String[] namespaces, Workload workload, IndexApi api, Counts counts,
            Timeline timeline, Ledger ledger, Duration bound) {
        this.group = group;
        this.replicas = List.copyOf(replicas);
        this.namespaces = namespaces.clone();
        this.workload = workload;
        this.api = api;
        this.payload = new KvPayload(workload.bytesPerBlock());
        this.counts = counts;
        this.timeline = timeline;
        this.ledger = ledger;
        this.bound = bound;
    }

    void start(int concurrency) {
        running = true;
        started = System.currentTimeMillis();
        for (int i = 0; i < concurrency; i++) {
            Thread thread = new Thread(this::work, "chaos-engine-" + i);
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(90_000);
        }
    }

    /** The namespace of these engines at each replica, in the replicas' order. */
    String[] namespaces() {
        return namespaces.clone();
    }

    void nodeDown(String node) {
        downNode = node;
    }

    void nodeSilent(String node) {
        silentNode = node;
    }

    /**
     * The node is being brought back (relaunched, or continued): from its first heartbeat the index may name it
     * again, before the run sees it ready.
     */
    void nodeReturning() {
        silentNode = null;
    }

    void nodeBack() {
        downNode = null;
        silentNode = null;
    }

    /**
     * Stores a prompt of 4 blocks of random tokens (no other prompt shares them) at the first replica, as an engine
     * does; its object id, or null when the store failed (counted like an engine's).
     */
    String storeOne(Random random) {
        int[] tokens = new int[4 * workload.blockSize()];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = 1 + random.nextInt(50_000);
        }
        BenchRequest request = new BenchRequest(-1, tokens, RollingHashChain.of(workload.blockSize(), tokens),
                tokens.length);
        try {
            return api.store(replicas.get(0), namespaces[0], request, payload, 0).objectId();
        } catch (IndexApi.CallFailed e) {
            counts.add(e.kind().replace('_', '.'));
            countCode(e);
            return null;
        }
    }

    /** The last stored prompts, newest first, at most {@code n}; only those on {@code node} when it is not null. */
    synchronized List<Stored> recent(int n, String node) {
        List<Stored> out = new ArrayList<>();
        for (Stored s : recent) {
            if (out.size() == n) {
                break;
            }
            if (node == null || node.equals(s.node())) {
                out.add(s);
            }
        }
        return out;
    }

    /** A mark: the stores answered from now on are {@link #storedSince} it. */
    synchronized long storedMark() {
        return storedCount;
    }

    /** The prompts stored since {@code mark}, newest first (at most the last {@value #RECENT}). */
    synchronized List<Stored> storedSince(long mark) {
        return recent.stream().limit(storedCount - mark).toList();
    }

    private synchronized void remember(Stored stored) {
        ledger.stored(group, stored.objectId(), stored.node());
        storedCount++;
        recent.addFirst(stored);
        if (recent.size() > RECENT) {
            recent.removeLast();
        }
    }

    private synchronized int nextReplica() {
        return (int) (turn++ % replicas.size());
    }

    private void work() {
        while (running) {
            BenchRequest request = workload.next();
            if (request == null) {
                return;
            }
            long due = request.dueMs() < 0 ? 0 : started + request.dueMs();
            // open loop: each request at its time (one late is sent at once); a stop is seen within 200 ms
            for (long wait = due - System.currentTimeMillis(); wait > 0
                    && running; wait = due - System.currentTimeMillis()) {
                try {
                    Thread.sleep(Math.min(wait, 200));
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (!running) {
                return;
            }
            serve(request, nextReplica());
        }
    }

    private void serve(BenchRequest request, int first) {
        for (int attempt = 0; attempt < replicas.size(); attempt++) {
            int r = (first + attempt) % replicas.size();
            try {
                serve(request, replicas.get(r), namespaces[r]);
                counts.add("requests");
                return;
            } catch (IndexApi.CallFailed e) {
                if (e.kind().equals("lookup_io")) {
                    counts.add("lookup.unreachable.r" + (r + 1));
                    continue;
                }
                counts.add("failed." + e.kind() + ".r" + (r + 1));
                countCode(e);
                return;
            }
        }
        counts.add("requests.no_replica");
    }

    private void serve(BenchRequest request, String index, String ns) throws IndexApi.CallFailed {
        // the node the index must call silent when the call begins: a call begun before that (a store whose PUT
        // hung on the paused node and completed at SIGCONT) chose its node while the node was still live
        String silent = silentNode;
        long t0 = System.nanoTime();
        IndexApi.Lookup lookup;
        try {
            lookup = api.lookup(index, ns, request);
        } finally {
            within("lookup", t0);
        }
        timeline.lookup(System.nanoTime() - t0);
        counts.add(lookup.hit() ? "lookup.hit" : "lookup.miss");
        int matched = 0;
        if (lookup.hit()) {
            if (lookup.node().equals(silent)) {
                counts.add("violation.lookup_on_silent_node");
            }
            long t1 = System.nanoTime();
            matched = load(index, lookup, request);
            within("get", t1);
        }
        timeline.blocks(request.blocks(), matched);
        if (matched < request.blocks()) {
            silent = silentNode;
            long t2 = System.nanoTime();
            try {
                IndexApi.Stored stored = api.store(index, ns, request, payload, matched);
                timeline.store(System.nanoTime() - t2);
                counts.add(stored.deduplicated() ? "store.200" : "store.201");
                if (stored.node().equals(silent)) {
                    counts.add("violation.store_on_silent_node");
                }
                remember(new Stored(stored.objectId(), stored.node(), request));
            } catch (IndexApi.CallFailed e) {
                String kind = e.kind().startsWith("store_5") && !e.kind().equals("store_503")
                        ? "violation." + e.kind()
                        : e.kind();
                counts.add(kind.replace('_', '.'));
                countCode(e);
            } finally {
                within("store", t2);
            }
        }
    }

    /** Counts a call begun at {@code startNanos} that took longer than the bound as a violation. */
    private void within(String op, long startNanos) {
        if (bound != null && System.nanoTime() - startNanos > bound.toNanos()) {
            counts.add("violation.over_bound." + op);
        }
    }

    /**
     * The index's error code of a failed call, under {@code code.<code>}: why the 503s were 503s. A storage node's
     * failure is also counted by what the node did: {@code .full} when it refused the write for want of room (507),
     * {@code .other} otherwise (no answer, a timeout, another error).
     */
    private void countCode(IndexApi.CallFailed e) {
        if (e.code() != null) {
            counts.add("code." + e.code());
            if (e.code().equals("StorageNodeFailed")) {
                counts.add("code.StorageNodeFailed." + (String.valueOf(e.getMessage()).contains("answered 507")
                        ? "full"
                        : "other"));
            }
        }
    }

    /** The blocks the GET of a hit delivered (0 when it failed or the object was gone: the engine recomputes). */
    private int load(String index, IndexApi.Lookup lookup, BenchRequest request) throws IndexApi.CallFailed {
        try {
            if (!api.check(lookup, payload, request.blockIds()).matches()) {
                counts.add("violation.get_wrong_bytes");
                return 0;
            }
            counts.add("get.ok");
            counts.add("get.ok." + lookup.node());
            ledger.hit(lookup.objectId());
            return lookup.blocks();
        } catch (IndexApi.CallFailed e) {
            if (e.kind().equals("get_404")) {
                // a candidate the node deleted for room is gone by design until the GC reads its heartbeat
                counts.add("reclaimed".equals(e.code()) ? "get.gone.reclaimed" : "get.gone");
                try {
                    api.invalidate(index, lookup);
                    counts.add("invalidate.ok");
                } catch (IndexApi.CallFailed invalidate) {
                    counts.add(invalidate.kind().replace('_', '.'));
                    countCode(invalidate);
                }
            } else if (lookup.node().equals(downNode)) {
                counts.add("get.failed.node_down");
            } else {
                counts.add("violation.get_failed_on_live_node");
            }
            return 0;
        }
    }
}
