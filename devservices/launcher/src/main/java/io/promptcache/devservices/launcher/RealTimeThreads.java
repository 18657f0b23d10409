package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Some threads of a process in Linux's round-robin real-time class ({@code SCHED_RR}, see {@code man 7 sched}): a
 * runnable real-time thread runs before every thread of the normal class, whatever its group or nice, so a service's
 * event loops answer while the cores are busy with everything else. What keeps it safe: an event loop sleeps whenever
 * it has nothing to do (it never blocks, it waits in {@code epoll}), and the kernel leaves the normal class at least
 * 5 % of each second whatever the real-time threads want ({@code kernel.sched_rt_runtime_us}). Set with {@code chrt}
 * (util-linux, on every Debian), which needs root or {@code CAP_SYS_NICE}.
 */
public final class RealTimeThreads {

    /** {@code SCHED_RR}, as {@code /proc/<pid>/task/<tid>/stat} names a thread's policy. */
    public static final int ROUND_ROBIN = 2;
    private static final Path CHRT = Path.of("/usr/bin/chrt");

    private RealTimeThreads() {
    }

    /** Whether {@code chrt}, which {@link #promote} runs, is there. */
    public static boolean available() {
        return Files.isExecutable(CHRT);
    }

    /**
     * Puts every thread of {@code pid} whose name ({@code comm}, at most 15 characters) starts with {@code prefix}
     * into {@code SCHED_RR} at {@code priority}.
     *
     * @return the ids of those threads
     * @throws IllegalStateException naming what to do when there is none, {@code chrt} is missing, or it is refused
     */
    public static List<Long> promote(long pid, String prefix, int priority) {
        List<Long> threads = named(pid, prefix);
        if (threads.isEmpty()) {
            throw new IllegalStateException("process " + pid + " has no thread named " + prefix + "*");
        }
        if (!available()) {
            throw new IllegalStateException(CHRT + " is missing (Debian's util-linux has it): it puts threads in the "
                    + "real-time class");
        }
        for (long tid : threads) {
            chrt(tid, priority);
            if (policy(pid, tid) != ROUND_ROBIN) {
                throw new IllegalStateException("thread " + tid + " of process " + pid + " is not in SCHED_RR after "
                        + "chrt");
            }
        }
        return threads;
    }

    /** The ids of the threads of {@code pid} whose name starts with {@code prefix}. */
    public static List<Long> named(long pid, String prefix) {
        List<Long> threads = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (Files.readString(task.resolve("comm")).strip().startsWith(prefix)) {
                        threads.add(Long.parseLong(task.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // the thread ended while listed
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the threads of process " + pid + ": " + e.getMessage(), e);
        }
        return threads;
    }

    /** A thread's scheduling policy (0 normal, {@value #ROUND_ROBIN} round-robin; field 41 of its stat). */
    public static int policy(long pid, long tid) {
        Path stat = Path.of("/proc", Long.toString(pid), "task", Long.toString(tid), "stat");
        try {
            String line = Files.readString(stat);
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Integer.parseInt(fields[41 - 3]);
        } catch (IOException e) {
            throw new IllegalStateException("thread " + tid + " of process " + pid + " is gone (" + stat + ")", e);
        }
    }

    private static void chrt(long tid, int priority) {
        try {
            Process chrt = new ProcessBuilder(CHRT.toString(), "--rr", "-p", Integer.toString(priority),
                    Long.toString(tid)).redirectErrorStream(true).start();
            String output = new String(chrt.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!chrt.waitFor(10, TimeUnit.SECONDS) || chrt.exitValue() != 0) {
                throw new IllegalStateException("cannot put thread " + tid + " in the real-time class (chrt --rr -p "
                        + priority + " " + tid + ": " + output + "): it needs root or CAP_SYS_NICE, and a "
                        + "real-time budget for its cgroup where cgroups limit it");
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + CHRT + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running chrt", e);
        }
    }
}
