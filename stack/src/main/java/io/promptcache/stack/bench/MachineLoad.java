package io.promptcache.stack.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * How busy the bench's machine was after the warm-up, from Linux's {@code /proc/stat}: the share of CPU time idle
 * and the runnable threads on average (sampled every second). A closed loop with no think time keeps every core
 * busy whatever a request costs; its latency percentiles then measure the wait for a core as much as the service,
 * and the report says so. On a machine without {@code /proc/stat} nothing is reported.
 */
final class MachineLoad implements AutoCloseable {

    /** Below this share of idle CPU, the run saturated the machine. */
    static final double SATURATED_IDLE_PERCENT = 5;
    private static final Path STAT = Path.of("/proc/stat");

    /** The aggregate CPU times of {@code /proc/stat} (ticks) and the threads running or runnable at that moment. */
    record Stat(long total, long idle, int running) {
    }

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-machine-load");
        t.setDaemon(true);
        return t;
    });
    private final int cores = Runtime.getRuntime().availableProcessors();
    private Stat first;
    private long runningSum;
    private int runningSamples;

    /** Starts counting once {@code warmup} has passed. */
    MachineLoad(Duration warmup) {
        timer.scheduleAtFixedRate(this::sample, warmup.toMillis(), 1000, TimeUnit.MILLISECONDS);
    }

    private synchronized void sample() {
        Optional<Stat> now = read();
        if (now.isEmpty()) {
            timer.shutdown();
            return;
        }
        if (first == null) {
            first = now.get();
        }
        runningSum += now.get().running();
        runningSamples++;
    }

    /**
     * Stops and summarizes: cores, CPU idle percent and mean runnable threads after the warm-up, and whether the
     * machine was saturated; empty without {@code /proc/stat} or when the run ended within the warm-up.
     */
    synchronized Map<String, Object> summary() {
        timer.shutdownNow();
        Optional<Stat> last = read();
        Map<String, Object> s = new LinkedHashMap<>();
        if (first == null || last.isEmpty() || runningSamples == 0) {
            return s;
        }
        double idle = idlePercent(first, last.get());
        double running = (double) runningSum / runningSamples;
        s.put("cores", cores);
        s.put("cpuIdlePercent", Math.round(idle * 10) / 10.0);
        s.put("runnableThreadsMean", Math.round(running * 10) / 10.0);
        s.put("saturated", idle < SATURATED_IDLE_PERCENT);
        return s;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** The share of CPU time idle (idle and iowait) between two readings, in percent. */
    static double idlePercent(Stat from, Stat to) {
        long total = to.total() - from.total();
        return total <= 0 ? 100 : 100.0 * (to.idle() - from.idle()) / total;
    }

    static Optional<Stat> read() {
        try {
            return Files.isReadable(STAT) ? Optional.of(parse(Files.readAllLines(STAT))) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The aggregate {@code cpu} line (user nice system idle iowait irq softirq steal ...; guest times are within user
     * and nice already, so the first eight are the total) and {@code procs_running} of {@code /proc/stat}.
     */
    static Stat parse(List<String> lines) {
        long total = -1;
        long idle = 0;
        int running = 0;
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f[0].equals("cpu")) {
                total = 0;
                for (int i = 1; i < Math.min(f.length, 9); i++) {
                    total += Long.parseLong(f[i]);
                }
                idle = Long.parseLong(f[4]) + (f.length > 5 ? Long.parseLong(f[5]) : 0);
            } else if (f[0].equals("procs_running")) {
                running = Integer.parseInt(f[1]);
            }
        }
        if (total < 0) {
            throw new IllegalArgumentException("no aggregate cpu line");
        }
        return new Stat(total, idle, running);
    }

    /** The report's line, and its warning when the machine was saturated; null without a summary. */
    static String describe(Map<String, Object> summary) {
        if (summary == null || !summary.containsKey("cpuIdlePercent")) {
            return null;
        }
        String line = String.format(Locale.ROOT, "this machine after the warm-up: CPU %s %% idle, %s runnable threads "
                + "on average on %s cores", summary.get("cpuIdlePercent"), summary.get("runnableThreadsMean"),
                summary.get("cores"));
        if (Boolean.TRUE.equals(summary.get("saturated"))) {
            line += "\n  saturated: the latencies below include the wait for a core. A closed loop (no --rate) keeps "
                    + "every core busy whatever a request costs; an open loop below the requests/s above (--rate, or a "
                    + "lower --time-compression for a trace) measures the service unsaturated";
        }
        return line;
    }
}
