package io.promptcache.stack.simulate;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.Policy;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.stack.cli.DurationConverter;
import io.promptcache.stack.cli.Sizes;
import io.promptcache.stack.plot.LineChart;
import io.promptcache.stack.trace.MooncakeTrace;
import io.promptcache.stack.trace.TraceRequest;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code promptcache simulate}: a trace against the GC's eviction policy in memory, for a list of capacities. */
@Command(name = "simulate", mixinStandardHelpOptions = true, description = "Replay a Mooncake-format trace against promptcache's eviction policies (the gc-processor's own "
        + "code) in memory - no Kafka, no storage - for a list of capacities, beside the block-level LRU and "
        + "offline Belady references; print and plot hit ratio vs capacity. This is how to size a cluster and "
        + "choose a policy.")
public final class SimulateCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    @Spec
    CommandSpec command;

    @Option(names = "--trace", required = true, description = "a Mooncake-format JSON-lines file")
    Path trace;

    @Option(names = "--trace-requests", defaultValue = "0", description = "only the first N requests")
    int traceRequests;

    @Option(names = "--capacities", split = ",", defaultValue = "1000,2500,5000,10000,20000,40000,80000", description = "storage capacities in blocks (default ${DEFAULT-VALUE})")
    List<Long> capacities;

    @Option(names = "--kv-bytes-per-block", defaultValue = "16KiB", converter = Sizes.class, description = "KV bytes per block (default ${DEFAULT-VALUE}); capacity in bytes = blocks x this")
    long bytesPerBlock;

    @Option(names = "--high-watermark", defaultValue = "0.90", description = "the GC's (default ${DEFAULT-VALUE})")
    double high;

    @Option(names = "--low-watermark", defaultValue = "0.80", description = "the GC's (default ${DEFAULT-VALUE})")
    double low;

    @Option(names = "--grace", defaultValue = "0s", converter = DurationConverter.class, description = "trace time an evicted object's bytes stay held (default 0: freed at once)")
    Duration grace;

    @Option(names = "--plan-interval", defaultValue = "0s", converter = DurationConverter.class, description = "trace time between two eviction rounds (default 0: after every request)")
    Duration planInterval;

    @Option(names = "--reclaim-on-demand", negatable = true, defaultValue = "true", fallbackValue = "true", description = "model the default promptcache.gc.reclaim-on-demand=true (and the storage nodes' own): the GC nominates eviction candidates (its next victims down to the low watermark, still served) and the node deletes them, least recently used first, when a store needs room; --no-reclaim-on-demand models a GC that tombstones between the watermarks (default: on)")
    boolean reclaimOnDemand;

    @Option(names = "--out", defaultValue = "simulate-report", description = "directory for simulate.json and hit-ratio-vs-capacity.svg (default ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--eviction", split = ",", defaultValue = "lru,reuse", description = "the GC's eviction policies to compare (promptcache.gc.eviction): lru, reuse (default ${DEFAULT-VALUE})")
    List<String> evictions;

    @Option(names = "--trims", negatable = true, defaultValue = "true", fallbackValue = "true", description = "a policy that trims (reuse) keeps an object its continuations read in part LIVE with what they read, instead of evicting it; --no-trims models the GC as it runs today, which evicts it (default: on)")
    boolean trims;

    @Override
    public Integer call() {
        PrintWriter console = command.commandLine().getOut();
        List<TraceRequest> requests = MooncakeTrace.read(trace, traceRequests);
        evictions.forEach(EvictionPolicy::named); // an unknown name fails before any work
        Policy policy = new Policy(high, low, Duration.ofDays(7).toMillis(), 0, Map.of(), new NodeLiveness(3,
                300_000), reclaimOnDemand);
        console.printf(Locale.ROOT, "%d requests of %s; KV %s per block; watermarks %.2f / %.2f; grace %s%n",
                requests.size(), trace.getFileName(), Sizes.format(bytesPerBlock), high, low, grace);
        console.println("block hit ratio; x = over block LRU's; of Belady = the share of the offline reference's hits");
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%17s  %9s  %16s", "capacity (blocks)",
                "block LRU", "Belady (offline)"));
        for (String name : evictions) {
            header.append(String.format(Locale.ROOT, "  %-30s", name + " (x LRU, of Belady, w.a., refused)"));
        }
        console.println(header);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long blocks : capacities) {
            rows.add(row(console, requests, policy, blocks));
        }
        write(rows, requests.size());
        console.println("report: " + out.resolve("simulate.json") + ", plot: "
                + out.resolve("hit-ratio-vs-capacity.svg"));
        console.flush();
        return 0;
    }

    /** One capacity: the two references, then each policy through the GC's code. */
    private Map<String, Object> row(PrintWriter console, List<TraceRequest> requests, Policy policy, long blocks) {
        BlockLru lru = new BlockLru(blocks);
        BlockBelady belady = new BlockBelady(blocks, requests);
        List<PolicySimulation> runs = new ArrayList<>();
        for (String name : evictions) {
            runs.add(new PolicySimulation(policy, EvictionPolicy.named(name, trims), blocks * bytesPerBlock,
                    bytesPerBlock,
                    grace.toMillis(), planInterval.toMillis()));
        }
        long total = 0;
        long hitLru = 0;
        long hitBelady = 0;
        long[] hits = new long[runs.size()];
        for (TraceRequest r : requests) {
            total += r.hashIds().length;
            hitLru += lru.request(r.hashIds());
            hitBelady += belady.request(r.hashIds());
            for (int k = 0; k < runs.size(); k++) {
                hits[k] += runs.get(k).request(r.timestampMs(), r.hashIds());
            }
        }
        double base = (double) hitLru / total;
        double best = (double) hitBelady / total;
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%17d  %9.4f  %8.4f (%5.3fx)", blocks, base,
                best, ratio(best, base)));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("capacityBlocks", blocks);
        row.put("capacityBytes", blocks * bytesPerBlock);
        row.put("blockLruBlockHitRatio", base);
        row.put("beladyBlockHitRatio", best);
        Map<String, Object> policies = new LinkedHashMap<>();
        for (int k = 0; k < runs.size(); k++) {
            PolicySimulation run = runs.get(k);
            double a = (double) hits[k] / total;
            line.append(String.format(Locale.ROOT, "  %.4f (%5.3fx, %4.1f%%, %4.2f, %d)", a, ratio(a, base),
                    100 * ratio(a, best), run.writeAmplification(), run.refusals()));
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("blockHitRatio", a);
            p.put("overBlockLru", ratio(a, base));
            p.put("shareOfBelady", ratio(a, best));
            p.put("writeAmplification", run.writeAmplification());
            p.put("storesRefused", run.refusals());
            p.put("trims", run.trims());
            policies.put(evictions.get(k), p);
        }
        row.put("policies", policies);
        console.println(line);
        console.flush();
        return row;
    }

    private static double ratio(double a, double b) {
        return b == 0 ? 0 : a / b;
    }

    private void write(List<Map<String, Object>> rows, int requestCount) {
        double[] xs = rows.stream().mapToDouble(r -> ((Long) r.get("capacityBlocks")).doubleValue()).toArray();
        LineChart chart = new LineChart("Block hit ratio vs capacity (" + trace.getFileName() + ")",
                "capacity (blocks, log scale)", "block hit ratio", true).yMax(1);
        for (String name : evictions) {
            chart.series("promptcache, " + name, xs, rows.stream().mapToDouble(r -> (Double) ((Map<?, ?>) ((Map<?, ?>) r
                    .get("policies")).get(name)).get("blockHitRatio")).toArray());
        }
        chart.series("block LRU (reference)", xs,
                rows.stream().mapToDouble(r -> (Double) r.get("blockLruBlockHitRatio")).toArray())
                .series("Belady (offline reference)", xs,
                        rows.stream().mapToDouble(r -> (Double) r.get("beladyBlockHitRatio")).toArray())
                .write(out.resolve("hit-ratio-vs-capacity.svg"));
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("trace", trace.getFileName().toString());
        document.put("requests", requestCount);
        document.put("kvBytesPerBlock", bytesPerBlock);
        document.put("highWatermark", high);
        document.put("lowWatermark", low);
        document.put("graceMs", grace.toMillis());
        document.put("planIntervalMs", planInterval.toMillis());
        document.put("reclaimOnDemand", reclaimOnDemand);
        document.put("evictionPolicies", evictions);
        document.put("capacities", rows);
        try {
            Files.createDirectories(out);
            JSON.writeValue(out.resolve("simulate.json").toFile(), document);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }
}
