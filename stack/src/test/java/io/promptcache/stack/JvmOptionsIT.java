package io.promptcache.stack;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.launcher.RealTimeThreads;
import io.promptcache.devservices.launcher.SchedulingGroups;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.stack.up.Jvm;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The two JVM options of {@code up} for few shared cores, on one stack ({@code up --jit QUICK --index-first}):
 * <ul>
 * <li>{@code --jit QUICK} (issue 38): every JVM of the stack - the services and its broker - runs with C1 only, and
 * the stack serves a bench without an error;</li>
 * <li>{@code --index-first}: the index replica's scheduling group at nice -10, every other service's at 0, each its
 * own group, and the replica's event loops (no other service's) in the real-time class; again after the replica is
 * killed and restarted. Where this user may not lower a nice, {@code up} fails and says why (and the quick JIT is
 * then checked on its own).</li>
 * </ul>
 */
class JvmOptionsIT {

    @TempDir
    Path work;

    @Test
    void shouldRunEveryJvmWithC1OnlyAndPutTheIndexReplicasSchedulingGroupFirst() throws Exception {
        assertThat(SchedulingGroups.enabled()).as("kernel.sched_autogroup_enabled (Debian's default)").isTrue();
        Path home = Path.of("..").toAbsolutePath().normalize();
        boolean indexFirst = SchedulingGroups.mayRaisePriority();
        if (!indexFirst) {
            StackSpec refused = StackSpec.oneOfEach(home, new Jvm(null, Jvm.Aot.OFF, Jvm.Jit.QUICK, true));
            assertThatThrownBy(() -> Stack.start(refused).close()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("lowering a nice needs root");
        }
        try (Stack stack = Stack.start(StackSpec.oneOfEach(home,
                new Jvm(null, Jvm.Aot.OFF, Jvm.Jit.QUICK, indexFirst)))) {
            // Then: C1 only in every JVM, and a bench without an error
            ShortBench.on(stack, work, "10s").assertClean();
            List<String> commands = stack.processes().stream()
                    .map(process -> process.info().commandLine().orElse("")).toList();
            assertThat(commands).as("3 services and the broker").hasSize(4)
                    .allSatisfy(command -> assertThat(command).contains("-XX:TieredStopAtLevel=1"));
            if (indexFirst) {
                assertIndexFirst(stack);
            }
        }
    }

    private static void assertIndexFirst(Stack stack) throws Exception {
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
        assertThat(replica.handle().info().commandLine().orElse("")).as("after a restart")
                .contains("-XX:TieredStopAtLevel=1");
    }

    /** The scheduling policies of a service's event loops (there is at least one). */
    private static Set<Integer> loopPolicies(ServiceProcess service) {
        long pid = service.handle().pid();
        List<Long> loops = RealTimeThreads.named(pid, Jvm.INDEX_FIRST_THREADS);
        assertThat(loops).as("event loops of " + service.log()).isNotEmpty();
        return loops.stream().map(tid -> RealTimeThreads.policy(pid, tid)).collect(Collectors.toSet());
    }
}
