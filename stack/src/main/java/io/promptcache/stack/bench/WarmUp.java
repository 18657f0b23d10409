package io.promptcache.stack.bench;

import java.time.Duration;
import java.util.Locale;

import io.promptcache.stack.cli.StackInfo;

/**
 * {@code up --warm-up}: {@code bench}'s default synthetic workload (8 engines, closed loop) against a stack that has
 * just started, before {@code up} says it is up, so that its JVMs have run and compiled their hot paths (lookup,
 * range GET, store, the GC's accounting and eviction) before the first real request. It runs in the namespace of its
 * own model, {@value #MODEL}: no other namespace sees its objects, and they are the first the GC evicts when room is
 * needed (the least recently used). A new seed each start, so that a reused data directory still sees stores.
 */
public final class WarmUp {

    /** The model fingerprint of the warm-up's namespace. */
    public static final String MODEL = "promptcache-warm-up";

    /** What the warm-up did: its requests, their stores, how many failed (one failure's kind and message, or null). */
    public record Result(long requests, long stores, double seconds, long errors, String anError) {

        /** One line for {@code up}'s output. */
        public String line() {
            return String.format(Locale.ROOT, "%d requests, %d stores in %.1f s (namespace of model %s), %d failed%s",
                    requests, stores, seconds, MODEL, errors, anError == null ? "" : " (one: " + anError + ")");
        }
    }

    private WarmUp() {
    }

    /**
     * Drives {@code stack} for {@code duration}; fails only when the warm-up's namespace cannot be registered (the
     * stack does not serve), a failed request is counted.
     */
    public static Result run(StackInfo stack, Duration duration) throws InterruptedException, IndexApi.CallFailed {
        stack.trustItsCa();
        Workload workload = new SyntheticWorkload(SyntheticWorkload.Params.defaults(System.nanoTime()));
        Driver driver = new Driver(stack.index(), stack.apiKey(), workload,
                Integer.parseInt(BenchCommand.CONCURRENCY), duration, Duration.ZERO, Long.MAX_VALUE);
        Report report = driver.run(MODEL, null);
        return new Result(report.requests(), report.stores(), report.seconds(), report.errorCount(), report.anError());
    }
}
