package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The weight of a process's scheduling group on Linux. With autogroups on ({@code kernel.sched_autogroup_enabled=1},
 * Debian's default), every session is a group of its own, the scheduler shares the CPU between the groups first, and
 * a thread's nice counts only against the threads of its own group: {@code renice} of a service started in its own
 * session does nothing against the other services. The group's own nice ({@code /proc/<pid>/autogroup}, see
 * {@code man 7 sched}) does: at -10 the group weighs about 9 times a group at 0. Lowering it needs root (or
 * {@code CAP_SYS_NICE}, or {@code RLIMIT_NICE}); raising it does not.
 */
public final class SchedulingGroups {

    private static final Path ENABLED = Path.of("/proc/sys/kernel/sched_autogroup_enabled");
    private static final int CAP_SYS_NICE = 23;
    private static final Pattern GROUP = Pattern.compile("/autogroup-(\\d+) nice (-?\\d+)");

    private SchedulingGroups() {
    }

    /**
     * A process's autogroup as {@code /proc/<pid>/autogroup} says it: its id and nice. The system's default group
     * (of the processes whose session never called {@code setsid}, such as a container's first process and what it
     * starts) has no line in that file; it is {@link #DEFAULT}, id 0 (the kernel numbers the others from 1).
     */
    public record Group(long id, int nice) {

        /** Whether this is the system's default group, whose nice cannot be set. */
        public boolean isDefault() {
            return id == DEFAULT.id;
        }
    }

    /** The system's default autogroup. */
    public static final Group DEFAULT = new Group(0, 0);

    /** The autogroup of {@code pid}. */
    public static Group of(long pid) {
        Path file = file(pid);
        try {
            return parse(pid, Files.readString(file));
        } catch (IOException e) {
            throw new IllegalStateException("process " + pid + " has no scheduling group to weigh (" + file
                    + ": " + e.getMessage() + "): autogroups need Linux with CONFIG_SCHED_AUTOGROUP", e);
        }
    }

    /** What {@code /proc/<pid>/autogroup} holds: one line, or none for the default group. */
    static Group parse(long pid, String content) {
        if (content.isBlank()) {
            return DEFAULT;
        }
        Matcher m = GROUP.matcher(content);
        if (!m.find()) {
            throw new IllegalStateException("cannot read the scheduling group of process " + pid + " (/proc/" + pid
                    + "/autogroup: " + content.strip() + ")");
        }
        return new Group(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)));
    }

    /**
     * Sets the nice of the autogroup of {@code pid}, a process that runs in a session of its own (else the group is
     * this launcher's too, and is refused).
     *
     * @throws IllegalStateException with what to do when autogroups are off, the process shares this launcher's
     *         group or runs in the default group, or the nice may not be lowered
     */
    public static void setNice(long pid, int nice) {
        if (!enabled()) {
            throw new IllegalStateException("autogroups are off (kernel.sched_autogroup_enabled=0): a scheduling "
                    + "group's nice would do nothing; renice the process's threads instead");
        }
        Group group = of(pid);
        if (group.id() == of(ProcessHandle.current().pid()).id()) {
            throw new IllegalStateException("process " + pid + " shares this launcher's scheduling group (not in a "
                    + "session of its own): its group's nice would weigh the launcher too");
        }
        if (group.isDefault()) {
            throw new IllegalStateException("process " + pid + " runs in the system's default scheduling group (not "
                    + "in a session of its own), whose nice cannot be set");
        }
        try {
            Files.writeString(file(pid), Integer.toString(nice));
        } catch (IOException e) {
            throw new IllegalStateException("cannot set the nice of process " + pid + "'s scheduling group to " + nice
                    + " (" + file(pid) + ": " + e.getMessage() + ")" + (nice < group.nice()
                            ? ": lowering a nice needs root, CAP_SYS_NICE or a RLIMIT_NICE that allows it"
                            : ""),
                    e);
        }
    }

    /**
     * Whether this process may raise a priority: lower a nice, or give a thread a real-time policy
     * ({@code CAP_SYS_NICE} among its effective capabilities; root has it).
     */
    public static boolean mayRaisePriority() {
        try {
            return Files.readString(Path.of("/proc/self/status")).lines()
                    .filter(line -> line.startsWith("CapEff:"))
                    .map(line -> (Long.parseUnsignedLong(line.substring(7).trim(), 16) & (1L << CAP_SYS_NICE)) != 0)
                    .findFirst().orElse(false);
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the kernel groups by session ({@code kernel.sched_autogroup_enabled}). */
    public static boolean enabled() {
        try {
            return Files.readString(ENABLED).trim().equals("1");
        } catch (IOException e) {
            return false;
        }
    }

    private static Path file(long pid) {
        return Path.of("/proc", Long.toString(pid), "autogroup");
    }
}
