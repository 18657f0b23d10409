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
@Command(name = "simulate", mixinStandardHelpOptions = true, description = "Replay a Mooncake-format trace against promptcache's eviction policy (the gc-processor's own "
        + "code) in memory - no Kafka, no storage - for a list of capacities, beside the block-level LRU "
        + "reference; print and plot hit ratio vs capacity. This is how to size a cluster.")
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

    @Override
    public Integer call() {
        PrintWriter console = command.commandLine().getOut();
        List<TraceRequest> requests = MooncakeTrace.read(trace, traceRequests);
        Policy policy = new Policy(high, low, Duration.ofDays(7).toMillis(), 0, Map.of(), new NodeLiveness(3,
                300_000), reclaimOnDemand);
        console.printf(Locale.ROOT, "%d requests of %s; KV %s per block; watermarks %.2f / %.2f; grace %s%n",
                requests.size(), trace.getFileName(), Sizes.format(bytesPerBlock), high, low, grace);
        console.println(
                "capacity (blocks)  promptcache (objects, GC policy)  block LRU (reference)  ratio  write amp.  refused");
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long blocks : capacities) {
            PolicySimulation ours = new PolicySimulation(policy, blocks * bytesPerBlock, bytesPerBlock,
                    grace.toMillis(), planInterval.toMillis());
            BlockLru reference = new BlockLru(blocks);
            long total = 0;
            long hitOurs = 0;
            long hitReference = 0;
            for (TraceRequest r : requests) {
                total += r.hashIds().length;
                hitOurs += ours.request(r.timestampMs(), r.hashIds());
                hitReference += reference.request(r.hashIds());
            }
            double a = (double) hitOurs / total;
            double b = (double) hitReference / total;
            console.printf(Locale.ROOT, "%17d  %32.4f  %21.4f  %5.3f  %10.2f  %7d%n", blocks, a, b,
                    b == 0 ? 0 : a / b, ours.writeAmplification(), ours.refusals());
            console.flush();
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("capacityBlocks", blocks);
            row.put("capacityBytes", blocks * bytesPerBlock);
            row.put("promptcacheBlockHitRatio", a);
            row.put("blockLruBlockHitRatio", b);
            row.put("promptcacheWriteAmplification", ours.writeAmplification());
            row.put("storesRefused", ours.refusals());
            rows.add(row);
        }
        write(rows, requests.size());
        console.println("report: " + out.resolve("simulate.json") + ", plot: "
                + out.resolve("hit-ratio-vs-capacity.svg"));
        console.flush();
        return 0;
    }

    private void write(List<Map<String, Object>> rows, int requestCount) {
        double[] xs = rows.stream().mapToDouble(r -> ((Long) r.get("capacityBlocks")).doubleValue()).toArray();
        new LineChart("Block hit ratio vs capacity (" + trace.getFileName() + ")", "capacity (blocks, log scale)",
                "block hit ratio", true).yMax(1)
                .series("promptcache (GC policy)", xs,
                        rows.stream().mapToDouble(r -> (Double) r.get("promptcacheBlockHitRatio")).toArray())
                .series("block LRU (reference)", xs,
                        rows.stream().mapToDouble(r -> (Double) r.get("blockLruBlockHitRatio")).toArray())
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
        document.put("capacities", rows);
        try {
            Files.createDirectories(out);
            JSON.writeValue(out.resolve("simulate.json").toFile(), document);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out, e);
        }
    }
}
