package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** On a real child process ({@code sleep}, whose one thread is named after it). */
class RealTimeThreadsTest {

    private Process child;

    @AfterEach
    void stopChild() throws InterruptedException {
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void shouldPutTheNamedThreadsInTheRealTimeClass() throws IOException {
        child = new ProcessBuilder("sleep", "60").start();
        long pid = child.pid();
        List<Long> threads = RealTimeThreads.named(pid, "slee");
        assertThat(threads).containsExactly(pid);
        assertThat(RealTimeThreads.policy(pid, pid)).isZero();

        if (SchedulingGroups.mayRaisePriority()) {
            assertThat(RealTimeThreads.promote(pid, "slee", 1)).containsExactly(pid);
            assertThat(RealTimeThreads.policy(pid, pid)).isEqualTo(RealTimeThreads.ROUND_ROBIN);
        } else {
            assertThatThrownBy(() -> RealTimeThreads.promote(pid, "slee", 1))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs root or CAP_SYS_NICE");
            assertThat(RealTimeThreads.policy(pid, pid)).isZero();
        }
        assertThat(RealTimeThreads.policy(ProcessHandle.current().pid(), ProcessHandle.current().pid()))
                .as("this JVM's main thread").isZero();
    }

    @Test
    void shouldNameAProcessWithoutSuchThreads() throws IOException {
        child = new ProcessBuilder("sleep", "60").start();
        assertThatThrownBy(() -> RealTimeThreads.promote(child.pid(), "vert.x-eventloo", 1))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("has no thread named vert.x-eventloo*");
    }
}
