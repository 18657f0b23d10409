package io.promptcache.index.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time from Linux {@code /proc}: of one process (all its threads, user + system) and of the whole machine, in
 * clock ticks of 10 ms (USER_HZ = 100 on Linux), so the benchmark can say how much CPU each side spent per lookup.
 */
final class CpuTime {

    private static final long NANOS_PER_TICK = 10_000_000L;

    private CpuTime() {
    }

    /** User + system CPU time of process {@code pid} so far, in nanoseconds. */
    static long process(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * NANOS_PER_TICK;
    }

    /** Busy CPU time of the whole machine so far (every core, everything but idle and iowait), in nanoseconds. */
    static long machineBusy() throws IOException {
        String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
        long busy = 0;
        for (int i = 1; i < fields.length && i <= 8; i++) {
            if (i != 4 && i != 5) {
                busy += Long.parseLong(fields[i]);
            }
        }
        return busy * NANOS_PER_TICK;
    }
}
