package io.promptcache.stack.status;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.stack.cli.Sizes;
import io.promptcache.stack.cli.StackInfo;

import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code promptcache status}: services up or down, storage used, lookups and their hit ratio. */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show the running stack: services, storage nodes (capacity used, and whether the index "
        + "serves them), lookups and hit ratio, what the GC holds.")
public final class StatusCommand implements Callable<Integer> {

    @Spec
    CommandSpec command;

    @Option(names = "--stack-file", description = "the file `up` wrote (default .promptcache-stack.json in the checkout)")
    Path stackFile;

    @Override
    public Integer call() {
        PrintWriter out = command.commandLine().getOut();
        StackInfo info = StackInfo.read(StackInfo.fileOrDefault(stackFile)).trustItsCa();
        boolean allUp = true;
        out.println("services");
        for (String index : info.index()) {
            allUp &= line(out, "index-service", index);
        }
        for (StackInfo.Node node : info.nodes()) {
            allUp &= line(out, "storage-node", node.url());
        }
        if (info.gc() != null) {
            allUp &= line(out, "gc-processor", info.gc());
        }
        out.println("storage nodes (latest heartbeats)");
        for (Map.Entry<String, NodeStatus> e : NodeHeartbeats.read(info.bootstrap(),
                ClientSettings.load(info.kafkaConfig() == null ? null : Path.of(info.kafkaConfig()))).entrySet()) {
            NodeStatus n = e.getValue();
            out.printf(Locale.ROOT, "  %-10s %-6s %10s of %10s (%5.1f %%)  %7d objects  RAM %s of %s%n", e.getKey(),
                    n.getState().name().replace("NODE_STATE_", ""), Sizes.format(n.getUsedBytes()),
                    Sizes.format(n.getCapacityBytes()),
                    100.0 * n.getUsedBytes() / Math.max(1, n.getCapacityBytes()), n.getObjects(),
                    Sizes.format(n.getRamUsedBytes()), Sizes.format(n.getRamCapacityBytes()));
        }
        if (!info.index().isEmpty()) {
            IndexNodes.print(out, info.index().get(0), info.apiKey());
        }
        double hits = 0;
        double misses = 0;
        double indexLag = 0;
        for (String index : info.index()) {
            Metrics m = Metrics.parse(Http.get(index + "/q/metrics").orElse(""));
            hits += m.sum("promptcache_lookups_total", Map.of("outcome", "hit"));
            misses += m.sum("promptcache_lookups_total", Map.of("outcome", "miss"));
            indexLag = Math.max(indexLag, m.sum("promptcache_replica_lag_records", Map.of()));
        }
        out.printf(Locale.ROOT, "lookups: %.0f (%.0f hits, %.0f misses), hit ratio %s%n", hits + misses, hits,
                misses, hits + misses == 0 ? "-" : String.format(Locale.ROOT, "%.3f", hits / (hits + misses)));
        if (info.gc() != null) {
            Metrics gc = Metrics.parse(Http.get(info.gc() + "/q/metrics").orElse(""));
            out.printf(Locale.ROOT, "gc: live %s, held %s (tombstoned, not yet deleted: %s)%n",
                    Sizes.format((long) gc.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "live"))),
                    Sizes.format((long) gc.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "held"))),
                    Sizes.format((long) (gc.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "held"))
                            - gc.sum("promptcache_gc_bytes", Map.of("scope", "global", "kind", "live")))));
            out.printf(Locale.ROOT, "metadata lag: gc-processor %.0f records behind, index replicas at most %.0f%n",
                    gc.sum("promptcache_gc_lag_records", Map.of()), indexLag);
        }
        out.flush();
        return allUp ? 0 : 3;
    }

    private static boolean line(PrintWriter out, String kind, String url) {
        boolean up = Http.get(url + "/q/health/ready").isPresent();
        out.printf("  %-14s %-28s %s%n", kind, url, up ? "UP" : "DOWN");
        return up;
    }
}
