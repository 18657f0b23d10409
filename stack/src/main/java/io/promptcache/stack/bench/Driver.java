package io.promptcache.stack.bench;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Drives a workload against a running stack the way engines would: {@code concurrency} workers, each taking the
 * next request (waiting for its due time in an open-loop workload) and doing lookup -> one range GET on a hit ->
 * store when the hit did not cover the prompt, sending only the blocks beyond the hit (the index stores a
 * continuation of the hit object). Replicas are used round-robin. Bounded by a duration and
 * a request count; prints a progress line while it runs.
 */
final class Driver {

    /** How far behind its schedule an open-loop request may start before it counts as late. */
    private static final long LATE_MS = 1_000;

    private final List<String> replicas;
    private final Workload workload;
    private final int concurrency;
    private final Duration duration;
    private final long maxRequests;
    private final IndexApi api;
    private final KvPayload payload;
    private final Report report;
    private final AtomicLong taken = new AtomicLong();
    private final AtomicLong late = new AtomicLong();
    private String[] namespaces;

    /** @param apiKey the index's API key, or null for an open index */
    Driver(List<String> replicas, String apiKey, Workload workload, int concurrency, Duration duration,
            Duration warmup, long maxRequests) {
        this.replicas = List.copyOf(replicas);
        this.report = new Report(warmup);
        this.workload = workload;
        this.concurrency = concurrency;
        this.duration = duration;
        this.maxRequests = maxRequests;
        this.api = new IndexApi(concurrency, apiKey);
        this.payload = new KvPayload(workload.bytesPerBlock());
    }

    Report run(String model, PrintWriter progress) throws InterruptedException, IndexApi.CallFailed {
        namespaces = new String[replicas.size()];
        for (int i = 0; i < replicas.size(); i++) {
            namespaces[i] = api.namespace(replicas.get(i), model, workload.blockSize());
        }
        report.start();
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < concurrency; w++) {
            Thread worker = new Thread(() -> work(start, deadline), "bench-" + w);
            worker.start();
            workers.add(worker);
        }
        for (Thread worker : workers) {
            while (worker.isAlive()) {
                worker.join(500);
                if (progress != null) {
                    progress(progress, start);
                }
            }
        }
        report.finish();
        if (progress != null) {
            progress(progress, start);
            progress.println();
            progress.flush();
        }
        return report;
    }

    long lateRequests() {
        return late.get();
    }

    private void work(long start, long deadline) {
        while (System.nanoTime() < deadline) {
            long n = taken.getAndIncrement();
            if (n >= maxRequests) {
                return;
            }
            BenchRequest request = workload.next();
            if (request == null) {
                return;
            }
            if (request.dueMs() >= 0) {
                long due = start + request.dueMs() * 1_000_000L;
                if (due > deadline) {
                    return;
                }
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    sleepNanos(wait);
                } else if (-wait > LATE_MS * 1_000_000L) {
                    late.incrementAndGet();
                }
            }
            int replica = (int) (n % replicas.size());
            serve(replicas.get(replica), namespaces[replica], request);
        }
    }

    /**
     * One engine request: lookup, range GET of the hit, store of the blocks beyond the hit. The request
     * counts (with its hit) once its lookup and GET succeeded; a failed store is an error of its own, as an engine
     * that could not store its KV state still served the request.
     */
    private void serve(String index, String ns, BenchRequest request) {
        try {
            long t0 = System.nanoTime();
            IndexApi.Lookup lookup = api.lookup(index, ns, request);
            report.latency(Report.Op.LOOKUP, System.nanoTime() - t0);
            int matched = 0;
            if (lookup.hit()) {
                KvPayload.Check got = load(index, lookup, request);
                if (got != null && !got.matches()) {
                    report.error("get_wrong_bytes",
                            "object " + lookup.objectId() + ": the range GET returned other bytes");
                    return;
                }
                matched = got == null ? 0 : lookup.blocks();
            }
            report.request(request, workload.blockSize(), matched);
            if (matched < request.blocks()) {
                long t2 = System.nanoTime();
                IndexApi.Stored stored = api.store(index, ns, request, payload, matched);
                report.latency(Report.Op.STORE, System.nanoTime() - t2);
                long bytesPerBlock = payload.bytesPerBlock();
                report.stored(request.blocks() * bytesPerBlock, stored, (request.blocks() - matched) * bytesPerBlock);
            }
        } catch (IndexApi.CallFailed e) {
            report.error(e.kind(), e.getMessage());
        }
    }

    /**
     * The one range GET of a hit, its bytes checked as they arrive; null when the node answered 404 (the object went
     * between lookup and GET): a miss, reported with {@code invalidate}, never an error, as an engine connector does.
     */
    private KvPayload.Check load(String index, IndexApi.Lookup lookup, BenchRequest request)
            throws IndexApi.CallFailed {
        long t1 = System.nanoTime();
        try {
            KvPayload.Check got = api.check(lookup, payload, request.blockIds());
            report.latency(Report.Op.GET, System.nanoTime() - t1);
            report.read(got.bytes());
            return got;
        } catch (IndexApi.CallFailed e) {
            if (!e.kind().equals("get_404")) {
                throw e;
            }
            report.goneOnGet();
            api.invalidate(index, lookup);
            return null;
        }
    }

    private void progress(PrintWriter out, long start) {
        double elapsed = (System.nanoTime() - start) / 1e9;
        double total = duration.toSeconds();
        int width = 30;
        int filled = (int) Math.min(width, width * elapsed / total);
        out.printf(Locale.ROOT, "\r[%s%s] %5.0f s  %7d requests  %6.0f req/s  block hit ratio %.3f  errors %d ",
                "#".repeat(filled), " ".repeat(width - filled), elapsed, report.requests(),
                report.requests() / Math.max(elapsed, 1e-3), report.blockHitRatio(), report.errorCount());
        out.flush();
    }

    private static void sleepNanos(long nanos) {
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
