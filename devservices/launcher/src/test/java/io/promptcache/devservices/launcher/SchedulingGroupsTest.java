package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** On real child processes: {@code sleep} in a session of its own, and one in this JVM's session. */
class SchedulingGroupsTest {

    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void linuxWithAutogroups() {
        boolean linux = Files.isRegularFile(Path.of("/proc/self/autogroup"));
        if (System.getenv("CI") != null) {
            // the CI machines are Debian with autogroups on (the default): a missing one is a failure there
            assertThat(linux).as("/proc/self/autogroup").isTrue();
            assertThat(SchedulingGroups.enabled()).as("kernel.sched_autogroup_enabled").isTrue();
        }
        assumeTrue(linux && SchedulingGroups.enabled(), "Linux with autogroups on");
    }

    @AfterEach
    void stopChildren() throws InterruptedException {
        for (Process child : children) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldWeighTheGroupOfAProcessInASessionOfItsOwn() throws IOException, InterruptedException {
        Process child = start(true);
        long pid = child.pid();
        SchedulingGroups.Group before = SchedulingGroups.of(pid);
        assertThat(before.id()).isNotEqualTo(SchedulingGroups.of(ProcessHandle.current().pid()).id());

        SchedulingGroups.setNice(pid, 5); // raising needs no privilege
        assertThat(SchedulingGroups.of(pid)).isEqualTo(new SchedulingGroups.Group(before.id(), 5));
        assertThat(SchedulingGroups.of(ProcessHandle.current().pid()).nice()).as("this JVM's group").isZero();

        if (SchedulingGroups.mayRaisePriority()) {
            SchedulingGroups.setNice(pid, -10);
            assertThat(SchedulingGroups.of(pid).nice()).isEqualTo(-10);
        } else {
            assertThatThrownBy(() -> SchedulingGroups.setNice(pid, -10)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lowering a nice needs root");
            assertThat(SchedulingGroups.of(pid).nice()).isEqualTo(5);
        }
    }

    @Test
    void shouldRefuseAProcessThatSharesThisGroup() throws IOException, InterruptedException {
        Process child = start(false);
        assertThatThrownBy(() -> SchedulingGroups.setNice(child.pid(), 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("shares this launcher's scheduling group");
        assertThat(SchedulingGroups.of(ProcessHandle.current().pid()).nice()).isZero();
    }

    @Test
    void shouldNameAProcessThatIsGone() {
        assertThatThrownBy(() -> SchedulingGroups.of(Long.MAX_VALUE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has no scheduling group");
    }

    @Test
    void shouldReadTheDefaultGroupAsTheKernelShowsIt() {
        // a process whose session never called setsid (a container's first process, a CI runner's JVM) is in the
        // default group: its file is empty
        assertThat(SchedulingGroups.parse(1, "")).isEqualTo(SchedulingGroups.DEFAULT);
        assertThat(SchedulingGroups.DEFAULT.isDefault()).isTrue();
        assertThat(SchedulingGroups.parse(7, "/autogroup-42 nice -10\n"))
                .isEqualTo(new SchedulingGroups.Group(42, -10));
        assertThatThrownBy(() -> SchedulingGroups.parse(7, "garbage")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot read the scheduling group of process 7");
    }

    @Test
    void shouldRefuseAProcessOfTheDefaultGroup() throws IOException {
        // the kernel's own threads (and init) are in the default group on any Linux
        long pid;
        try (var pids = Files.list(Path.of("/proc"))) {
            pid = pids.map(p -> p.getFileName().toString()).filter(name -> name.matches("\\d+"))
                    .map(Long::parseLong).filter(SchedulingGroupsTest::inDefaultGroup).findFirst().orElseThrow();
        }
        String expected = SchedulingGroups.of(ProcessHandle.current().pid()).isDefault()
                ? "shares this launcher's scheduling group" // a JVM started outside any session of its own (CI)
                : "runs in the system's default scheduling group";
        assertThatThrownBy(() -> SchedulingGroups.setNice(pid, 5)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(expected);
    }

    private static boolean inDefaultGroup(long pid) {
        try {
            return SchedulingGroups.of(pid).isDefault();
        } catch (IllegalStateException gone) {
            return false;
        }
    }

    /** {@code sleep 60}, in a session of its own or not, once its session is what was asked for. */
    private Process start(boolean ownSession) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(ServiceProcess.sessionPrefix(ownSession));
        assertThat(command.isEmpty()).as("/usr/bin/setsid").isEqualTo(!ownSession);
        command.addAll(List.of("sleep", "60"));
        Process child = new ProcessBuilder(command).start();
        children.add(child);
        // setsid runs in the child before it execs sleep: wait until it has (bounded)
        long own = SchedulingGroups.of(ProcessHandle.current().pid()).id();
        for (int i = 0; i < 100 && ownSession && SchedulingGroups.of(child.pid()).id() == own; i++) {
            Thread.sleep(50);
        }
        return child;
    }
}
