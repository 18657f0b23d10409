package io.promptcache.stack.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.promptcache.stack.plot.LineChart;

/** A bench run's report: on the console, as JSON ({@code report.json}) and as plots (SVG). */
final class BenchOutput {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private BenchOutput() {
    }

    @SuppressWarnings("unchecked")
    static void print(PrintWriter out, Map<String, Object> summary) {
        out.printf(Locale.ROOT, "requests %s in %s s (%s req/s); hit ratio: requests %s, blocks %s, tokens %s%n",
                summary.get("requests"), summary.get("seconds"), summary.get("requestsPerSecond"),
                summary.get("requestHitRatio"), summary.get("blockHitRatio"), summary.get("tokenHitRatio"));
        out.printf(Locale.ROOT, "hits gone on GET (404: counted as misses, invalidated) %s%n",
                summary.get("hitsGoneOnGet"));
        out.printf(Locale.ROOT, "stores %s (%s deduplicated, %s continuing the hit); bytes read %s, written %s (write"
                + " amplification %.3f: written / bytes of the blocks that missed)%n", summary.get("stores"),
                summary.get("storesDeduplicated"), summary.get("storesContinued"), summary.get("bytesRead"),
                summary.get("bytesWritten"), (Double) summary.get("writeAmplification"));
        Map<String, Object> metadata = (Map<String, Object>) summary.get("metadata");
        if (metadata != null && metadata.containsKey("records")) {
            out.printf(Locale.ROOT, "metadata: %s records for %s published stores (%s per store; %s written blocks per"
                    + " store; records / (written blocks + 1) per store %s)%n", metadata.get("records"),
                    metadata.get("storesPublished"), metadata.get("recordsPerStore"),
                    metadata.get("writtenBlocksPerStore"), metadata.get("recordsPerWrittenBlockPlusOne"));
        } else if (metadata != null) {
            out.println("metadata: " + metadata.get("unknown"));
        }
        Map<String, Object> pipeline = (Map<String, Object>) summary.get("pipeline");
        if (pipeline != null && pipeline.containsKey("gcLagMax")) {
            out.printf(Locale.ROOT,
                    "pipeline (sampled every %d s): gc lag max %s, at the end %s (at minutes 2/5/10: %s);"
                            + " index replica lag max %s, at the end %s; tombstoned not deleted max %s bytes, at the end %s%n",
                    BenchCommand.SAMPLE_SECONDS, pipeline.get("gcLagMax"), pipeline.get("gcLagEnd"),
                    pipeline.get("gcLagAtMinute"), pipeline.get("indexLagMax"), pipeline.get("indexLagEnd"),
                    pipeline.get("tombstonedBytesMax"), pipeline.get("tombstonedBytesEnd"));
        }
        String machine = MachineLoad.describe((Map<String, Object>) summary.get("machine"));
        if (machine != null) {
            out.println(machine);
        }
        Object wholeRun = summary.get("latencyMicrosWholeRun");
        latencies(out, wholeRun == null ? "" : " after the warm-up (" + summary.get("warmupSeconds") + " s)",
                (Map<String, Map<String, Object>>) summary.get("latencyMicros"));
        if (wholeRun != null) {
            latencies(out, " over the whole run", (Map<String, Map<String, Object>>) wholeRun);
        }
        out.println("errors: " + summary.get("errors"));
        ((Map<String, List<String>>) summary.get("errorSamples")).forEach((kind, messages) -> messages
                .forEach(m -> out.println("  " + kind + ": " + m)));
        out.flush();
    }

    private static void latencies(PrintWriter out, String over, Map<String, Map<String, Object>> ops) {
        out.println("latency (us)" + over);
        out.println("  op            count       p50       p90       p99      p999       max");
        ops.forEach((op, p) -> out.printf(Locale.ROOT, "  %-8s %10s %9s %9s %9s %9s %9s%n", op, p.get("count"),
                p.getOrDefault("p50", "-"), p.getOrDefault("p90", "-"), p.getOrDefault("p99", "-"),
                p.getOrDefault("p999", "-"), p.getOrDefault("max", "-")));
    }

    static void write(Path dir, Map<String, Object> document, Report report) {
        try {
            Files.createDirectories(dir);
            JSON.writeValue(dir.resolve("report.json").toFile(), document);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report to " + dir, e);
        }
        LineChart cdf = new LineChart("Latency CDF per operation", "latency (us, log scale)", "percentile", true)
                .yMax(100);
        for (Report.Op op : Report.Op.values()) {
            Histogram h = report.histogram(op);
            if (h.getTotalCount() == 0) {
                continue;
            }
            List<double[]> points = new ArrayList<>();
            for (HistogramIterationValue v : h.percentiles(5)) {
                points.add(new double[]{Math.max(1, v.getValueIteratedTo()), v.getPercentileLevelIteratedTo()});
            }
            cdf.series(op.label(), points.stream().mapToDouble(p -> p[0]).toArray(),
                    points.stream().mapToDouble(p -> p[1]).toArray());
        }
        cdf.write(dir.resolve("latency-cdf.svg"));
        Map<Long, long[]> timeline = report.timeline();
        double[] seconds = timeline.keySet().stream().mapToDouble(Long::doubleValue).toArray();
        double[] done = timeline.values().stream().mapToDouble(r -> r[0]).toArray();
        double[] errors = timeline.values().stream().mapToDouble(r -> r[3]).toArray();
        new LineChart("Throughput over time", "seconds", "requests per second", false)
                .series("requests done", seconds, done).series("errors", seconds, errors)
                .write(dir.resolve("throughput.svg"));
        double[] hitRatio = timeline.values().stream().mapToDouble(r -> r[2] == 0 ? 0 : (double) r[1] / r[2])
                .toArray();
        double[] cumulative = new double[hitRatio.length];
        long hits = 0;
        long blocks = 0;
        int i = 0;
        for (long[] row : timeline.values()) {
            hits += row[1];
            blocks += row[2];
            cumulative[i++] = blocks == 0 ? 0 : (double) hits / blocks;
        }
        storeLatency(dir, report.minutes());
        new LineChart("Block hit ratio over time", "seconds", "block hit ratio", false).yMax(1)
                .series("each second", seconds, hitRatio).series("since the start", seconds, cumulative)
                .write(dir.resolve("hit-ratio.svg"));
    }

    /** The pipeline's lags and tombstoned bytes over the run (a series per index replica, one for the GC). */
    static void pipeline(Path dir, List<PipelineSampler.Sample> samples) {
        if (samples.isEmpty()) {
            return;
        }
        double[] seconds = samples.stream().mapToDouble(PipelineSampler.Sample::second).toArray();
        LineChart lag = new LineChart("Consumer lag of the metadata pipeline", "seconds", "records behind", false)
                .series("gc-processor", seconds, samples.stream().mapToDouble(PipelineSampler.Sample::gcLag)
                        .toArray());
        int replicas = samples.get(0).indexLag().size();
        for (int r = 0; r < replicas; r++) {
            int i = r;
            lag.series("index replica " + (r + 1), seconds, samples.stream()
                    .mapToDouble(x -> i < x.indexLag().size() ? x.indexLag().get(i) : -1).toArray());
        }
        lag.write(dir.resolve("pipeline-lag.svg"));
        new LineChart("Bytes tombstoned and not yet deleted (GC's count)", "seconds", "MiB", false)
                .series("tombstoned, not deleted", seconds, samples.stream()
                        .mapToDouble(x -> x.tombstonedBytes() / (1024.0 * 1024.0)).toArray())
                .write(dir.resolve("tombstoned.svg"));
    }

    @SuppressWarnings("unchecked")
    private static void storeLatency(Path dir, List<Map<String, Object>> minutes) {
        List<Map<String, Object>> rows = minutes.stream().filter(m -> m.containsKey("store")).toList();
        if (rows.isEmpty()) {
            return;
        }
        double[] minute = rows.stream().mapToDouble(m -> ((Long) m.get("minute")).doubleValue()).toArray();
        LineChart chart = new LineChart("Store latency per minute", "minute of the run", "latency (ms)", false);
        for (String p : new String[]{"p50", "p90", "p99"}) {
            chart.series(p, minute, rows.stream()
                    .mapToDouble(m -> ((Number) ((Map<String, Object>) m.get("store")).get(p)).doubleValue() / 1000)
                    .toArray());
        }
        chart.write(dir.resolve("store-latency.svg"));
    }
}
