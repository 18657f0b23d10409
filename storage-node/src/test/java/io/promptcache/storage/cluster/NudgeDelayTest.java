package io.promptcache.storage.cluster;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** An extra heartbeat after a reclaim goes soon, but never sooner than the gap after the last heartbeat. */
class NudgeDelayTest {

    @Test
    void shouldWaitOutTheGapAfterARecentHeartbeat() {
        // Given: a heartbeat sent 10 ms ago; Then: the extra one waits for the rest of the gap
        assertThat(NodeHeartbeat.nudgeDelayMs(1_000, 1_010)).isEqualTo(NodeHeartbeat.NUDGE_GAP_MS - 10);
    }

    @Test
    void shouldGoSoonWhenTheLastHeartbeatIsOld() {
        // Given: the last heartbeat is older than the gap; Then: the usual short delay, which coalesces a burst
        assertThat(NodeHeartbeat.nudgeDelayMs(1_000, 1_000 + 10 * NodeHeartbeat.NUDGE_GAP_MS)).isEqualTo(50);
        assertThat(NodeHeartbeat.nudgeDelayMs(1_000, 1_000 + NodeHeartbeat.NUDGE_GAP_MS - 20)).isEqualTo(50);
    }

    @Test
    void shouldWaitTheGapWhenTheClockWentBack() {
        assertThat(NodeHeartbeat.nudgeDelayMs(5_000, 1_000)).isEqualTo(NodeHeartbeat.NUDGE_GAP_MS);
    }
}
