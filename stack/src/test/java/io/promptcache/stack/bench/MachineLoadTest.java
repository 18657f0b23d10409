package io.promptcache.stack.bench;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bench's account of its machine: {@code /proc/stat} read as Linux writes it, the idle share between two readings,
 * the warning of a saturated run, and a real reading of this machine while two threads spin.
 */
class MachineLoadTest {

    @Test
    void shouldReadTheAggregateCpuLineAndTheRunnableThreads() {
        MachineLoad.Stat stat = MachineLoad.parse(List.of(
                "cpu  1000 20 300 5000 100 7 8 9 40 2",
                "cpu0 500 10 150 2500 50 3 4 4 20 1",
                "intr 12345 0 0",
                "procs_running 17",
                "procs_blocked 0"));

        // user+nice+system+idle+iowait+irq+softirq+steal; guest (40, 2) is within user and nice already
        assertThat(stat).isEqualTo(new MachineLoad.Stat(1000 + 20 + 300 + 5000 + 100 + 7 + 8 + 9, 5100, 17));
    }

    @Test
    void shouldCountIdleAndIowaitAsIdleBetweenTwoReadings() {
        MachineLoad.Stat from = new MachineLoad.Stat(10_000, 4_000, 3);
        MachineLoad.Stat to = new MachineLoad.Stat(12_000, 4_050, 16);

        assertThat(MachineLoad.idlePercent(from, to)).isEqualTo(2.5);
    }

    @Test
    void shouldWarnOfASaturatedRunAndOnlyThen() {
        String saturated = MachineLoad.describe(Map.of("cores", 2, "cpuIdlePercent", 0.8, "runnableThreadsMean", 16.2,
                "saturated", true));
        String idle = MachineLoad.describe(Map.of("cores", 2, "cpuIdlePercent", 52.1, "runnableThreadsMean", 3.4,
                "saturated", false));

        assertThat(saturated).startsWith("this machine after the warm-up: CPU 0.8 % idle, 16.2 runnable threads on "
                + "average on 2 cores").contains("saturated: the latencies below include the wait for a core");
        assertThat(idle).doesNotContain("saturated");
        assertThat(MachineLoad.describe(Map.of())).isNull();
    }

    @Test
    void shouldMeasureThisMachineWhileTwoThreadsSpin() throws Exception {
        MachineLoad load = new MachineLoad(Duration.ZERO);
        Thread[] spinners = new Thread[2];
        long until = System.nanoTime() + 1_500_000_000L;
        for (int i = 0; i < spinners.length; i++) {
            spinners[i] = new Thread(() -> {
                long x = 0;
                while (System.nanoTime() < until) {
                    x += System.nanoTime() % 7;
                }
                assertThat(x).isNotNegative();
            });
            spinners[i].start();
        }
        for (Thread spinner : spinners) {
            spinner.join();
        }

        Map<String, Object> summary = load.summary();

        assertThat(summary).containsEntry("cores", Runtime.getRuntime().availableProcessors());
        assertThat((Double) summary.get("cpuIdlePercent")).isBetween(0.0, 100.0);
        assertThat((Double) summary.get("runnableThreadsMean")).isGreaterThanOrEqualTo(1.0);
        assertThat(summary).containsKey("saturated");
    }
}
