package io.promptcache.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.launcher.RealTimeThreads;
import io.promptcache.devservices.launcher.SchedulingGroups;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code up --index-first}: the index replica's scheduling group at nice -10, every other service's at 0, each its
 * own group, and the replica's event loops (no other service's) in the real-time class; again after the replica is
 * killed and restarted. Where this user may not lower a nice, {@code up} fails and says why.
 */
class IndexFirstIT {

    @Test
    void shouldPutTheIndexReplicasSchedulingGroupFirst() throws IOException {
        assertThat(SchedulingGroups.enabled()).as("kernel.sched_autogroup_enabled (Debian's default)").isTrue();
        Path home = Path.of("..").toAbsolutePath().normalize();
        StackSpec spec = StackSpec.oneOfEach(home, new Jvm(null, Jvm.Aot.OFF, Jvm.Jit.FULL, true));
        if (!SchedulingGroups.mayRaisePriority()) {
            assertThatThrownBy(() -> Stack.start(spec).close()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lowering a nice needs root");
            return;
        }
        try (Stack stack = Stack.start(spec)) {
            ServiceProcess replica = stack.replicas().get(0);
            assertThat(SchedulingGroups.of(replica.handle().pid()).nice()).isEqualTo(Jvm.INDEX_FIRST_NICE);
            long launcher = SchedulingGroups.of(ProcessHandle.current().pid()).id();
            assertThat(SchedulingGroups.of(replica.handle().pid()).id()).isNotEqualTo(launcher);
            assertThat(loopPolicies(replica)).isEqualTo(Set.of(RealTimeThreads.ROUND_ROBIN));
            for (ServiceProcess other : List.of(stack.nodes().get(0), stack.gcs().get(0))) {
                assertThat(SchedulingGroups.of(other.handle().pid()).nice()).as(other.log().toString()).isZero();
                assertThat(loopPolicies(other)).as(other.log().toString()).isEqualTo(Set.of(0));
            }
            assertThat(SchedulingGroups.of(ProcessHandle.current().pid()).nice()).as("the launcher's").isZero();

            replica.kill();
            replica.launch().awaitReady(Duration.ofSeconds(120));
            assertThat(SchedulingGroups.of(replica.handle().pid()).nice()).as("after a restart")
                    .isEqualTo(Jvm.INDEX_FIRST_NICE);
            assertThat(loopPolicies(replica)).as("after a restart").isEqualTo(Set.of(RealTimeThreads.ROUND_ROBIN));
        }
    }

    /** The scheduling policies of a service's event loops (there is at least one). */
    private static Set<Integer> loopPolicies(ServiceProcess service) {
        long pid = service.handle().pid();
        List<Long> loops = RealTimeThreads.named(pid, Jvm.INDEX_FIRST_THREADS);
        assertThat(loops).as("event loops of " + service.log()).isNotEmpty();
        return loops.stream().map(tid -> RealTimeThreads.policy(pid, tid)).collect(Collectors.toSet());
    }
}
