package io.promptcache.stack.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.promptcache.stack.plot.LineChart;

/**
 * How a soak reads: {@code report.json} (every slot, the per-minute series of each engine group, the totals),
 * {@code report.md} (a table of the slots: the windows before and after each fault, what was measured, what broke),
 * and two plots over the run's minutes with each fault marked: {@code hit-ratio.svg} and {@code latency.svg}.
 */
public final class SoakReport {

    private SoakReport() {
    }

    /** The run's totals: chaos's, the ledger's, and the counts a soak holds to zero. */
    public static Map<String, Object> totals(SoakRun.Result result) {
        Map<String, Object> totals = new LinkedHashMap<>(ChaosReport.totals(result.rounds()));
        Map<String, Long> all = result.rounds().get(result.rounds().size() - 1).counts();
        totals.put("objectsStored", result.objects());
        totals.put("hitsChecked", result.hits());
        totals.put("objectsBy", result.tally());
        totals.put("liveObjectsLost", sum(result, "liveObjectsLost"));
        totals.put("liveObjectsReclaimedAwaitingGc", sum(result, "liveObjectsReclaimedAwaitingGc"));
        totals.put("callsOverBound", all.entrySet().stream().filter(e -> e.getKey().startsWith("violation.over_bound"))
                .mapToLong(Map.Entry::getValue).sum());
        totals.put("storesRefusedByALiveNode", all.getOrDefault("code.StorageNodeFailed.other", 0L)
                + all.getOrDefault("code.NoStorageNode", 0L));
        return totals;
    }

    private static long sum(SoakRun.Result result, String figure) {
        return result.rounds().stream().mapToLong(r -> ((Number) r.figures().getOrDefault(figure, 0)).longValue())
                .sum();
    }

    public static void write(Path dir, SoakRun.Options options, SoakRun.Result result, Map<String, Object> totals)
            throws IOException {
        Files.createDirectories(dir);
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("options", options.toString());
        document.put("totals", totals);
        document.put("slots", result.rounds());
        document.put("perMinute", result.series());
        new ObjectMapper().findAndRegisterModules().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValue(dir.resolve("report.json").toFile(), document);
        Files.writeString(dir.resolve("report.md"), markdown(result, totals));
        plot(result, "block hit ratio", Timeline.Window::blockHitRatio, 1.0).write(dir.resolve("hit-ratio.svg"));
        plot(result, "lookup p99 (ms)", Timeline.Window::lookupP99, Double.NaN).write(dir.resolve("latency.svg"));
    }

    static String markdown(SoakRun.Result result, Map<String, Object> totals) {
        StringBuilder md = new StringBuilder("| slot | fault | target | before (chat engines) | after it cleared | "
                + "measured | broken invariants |\n|---|---|---|---|---|---|---|\n");
        for (Round r : result.rounds()) {
            Map<String, Object> figures = new LinkedHashMap<>(r.figures());
            Object before = figures.remove("before");
            Object after = figures.remove("after");
            md.append("| ").append(r.fault() == null ? "end" : r.number()).append(" | ")
                    .append(r.fault() == null ? "final checks" : r.fault()).append(" | ").append(r.target())
                    .append(" | ").append(before == null ? "" : before).append(" | ").append(after == null ? "" : after)
                    .append(" | ").append(figures.toString().replace("|", "/")).append(" | ")
                    .append(r.violations().isEmpty() ? "none" : String.join("; ", r.violations())).append(" |\n");
        }
        md.append("\ntotals: ").append(totals).append('\n');
        return md.toString();
    }

    /** One line per engine group over the run's minutes (empty minutes left out), a vertical line per fault. */
    private static LineChart plot(SoakRun.Result result, String what, ToDoubleFunction<Timeline.Window> value,
            double top) {
        LineChart chart = new LineChart("soak: " + what + " per minute, faults marked", "minute", what, false);
        double highest = 0;
        for (Map.Entry<String, List<Timeline.Window>> group : result.series().entrySet()) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            List<Timeline.Window> windows = group.getValue();
            for (int m = 0; m < windows.size(); m++) {
                double y = value.applyAsDouble(windows.get(m));
                if (Double.isFinite(y)) {
                    xs.add((double) m);
                    ys.add(y);
                    highest = Math.max(highest, y);
                }
            }
            if (!xs.isEmpty()) {
                chart.series(group.getKey(), xs.stream().mapToDouble(Double::doubleValue).toArray(),
                        ys.stream().mapToDouble(Double::doubleValue).toArray());
            }
        }
        double mark = Double.isNaN(top) ? Math.max(1, highest) : top;
        for (Round r : result.rounds()) {
            Object at = r.figures().get("injectedAtS");
            if (r.fault() != null && at instanceof Number seconds) {
                double minute = seconds.doubleValue() / 60;
                chart.series(r.number() + " " + r.fault(), new double[]{minute, minute}, new double[]{0, mark});
            }
        }
        return Double.isNaN(top) ? chart : chart.yMax(top);
    }
}
