package io.promptcache.schema.node;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.node.NodeLiveness.Verdict;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;

import static org.assertj.core.api.Assertions.assertThat;

class NodeLivenessTest {

    private static final long NOW = 1_000_000;
    private final NodeLiveness liveness = new NodeLiveness(3, 60_000);

    private static NodeStatus node(NodeState state, long ageMs) {
        return NodeStatus.newBuilder().setNodeId("n").setEndpoint("http://127.0.0.1:9000").setState(state)
                .setHeartbeatIntervalMs(1_000).setHeartbeatAtMs(NOW - ageMs).build();
    }

    @Test
    void shouldServeUpAndDrainingNodesButWriteOnlyToUpOnes() {
        assertThat(liveness.serves(node(NodeState.NODE_STATE_UP, 0), NOW)).isTrue();
        assertThat(liveness.takesWrites(node(NodeState.NODE_STATE_UP, 0), NOW)).isTrue();
        assertThat(liveness.serves(node(NodeState.NODE_STATE_DRAINING, 0), NOW)).isTrue();
        assertThat(liveness.takesWrites(node(NodeState.NODE_STATE_DRAINING, 0), NOW)).isFalse();
        assertThat(liveness.serves(node(NodeState.NODE_STATE_DOWN, 0), NOW)).isFalse();
    }

    @Test
    void shouldTurnSilentPastTheIntervalsAndLostPastTheLimit() {
        assertThat(liveness.of(node(NodeState.NODE_STATE_UP, 3_000), NOW)).isEqualTo(Verdict.LIVE);
        assertThat(liveness.of(node(NodeState.NODE_STATE_UP, 3_001), NOW)).isEqualTo(Verdict.SILENT);
        assertThat(liveness.of(node(NodeState.NODE_STATE_UP, 60_001), NOW)).isEqualTo(Verdict.LOST);
        assertThat(liveness.of(null, NOW)).isEqualTo(Verdict.LOST);
        assertThat(NodeLiveness.ofIntervals(3).of(node(NodeState.NODE_STATE_UP, 1L << 40), NOW))
                .isEqualTo(Verdict.SILENT);
    }

    @Test
    void shouldNotServeANodeWithoutAnEndpoint() {
        NodeStatus blank = node(NodeState.NODE_STATE_UP, 0).toBuilder().setEndpoint("").build();
        assertThat(liveness.of(blank, NOW)).isEqualTo(Verdict.SILENT);
    }

    @Test
    void shouldJudgeAtNowWhileSomeNodeHeartbeats() {
        // Given: node a heartbeats, node b has been silent for 10 s
        var nodes = List.of(node(NodeState.NODE_STATE_UP, 500), node(NodeState.NODE_STATE_UP, 10_000));
        // When
        long at = liveness.judgedAt(nodes, NOW, 60_000);
        // Then: b is silent, as the clock says
        assertThat(at).isEqualTo(NOW);
        assertThat(liveness.of(nodes.get(1), at)).isEqualTo(Verdict.SILENT);
    }

    @Test
    void shouldJudgeAStalledFeedAsOfItsNewestHeartbeatWithinTheTolerance() {
        // Given: no heartbeat from any node for 20 s (the broker is down); b was 2 s behind a when it stopped
        var a = node(NodeState.NODE_STATE_UP, 20_000);
        var b = node(NodeState.NODE_STATE_UP, 22_000);
        var c = node(NodeState.NODE_STATE_UP, 30_000);
        // When
        long at = liveness.judgedAt(List.of(a, b, c), NOW, 60_000);
        // Then: as of a's heartbeat: a and b live, c (8 s behind then) silent
        assertThat(at).isEqualTo(NOW - 20_000);
        assertThat(liveness.of(a, at)).isEqualTo(Verdict.LIVE);
        assertThat(liveness.of(b, at)).isEqualTo(Verdict.LIVE);
        assertThat(liveness.of(c, at)).isEqualTo(Verdict.SILENT);
    }

    @Test
    void shouldLetTheClockWinAgainPastTheTolerance() {
        // Given: every node silent for 90 s
        var a = node(NodeState.NODE_STATE_UP, 90_000);
        // When: 60 s tolerated
        long at = liveness.judgedAt(List.of(a), NOW, 60_000);
        // Then: judged 60 s back: a has been silent 30 s then
        assertThat(at).isEqualTo(NOW - 60_000);
        assertThat(liveness.of(a, at)).isEqualTo(Verdict.SILENT);
        // and a reader that tolerates any stall (the GC) never gives the node up for it
        long never = liveness.judgedAt(List.of(node(NodeState.NODE_STATE_UP, 3_600_000)), NOW,
                Long.MAX_VALUE);
        assertThat(liveness.of(node(NodeState.NODE_STATE_UP, 3_600_000), never)).isEqualTo(Verdict.LIVE);
        assertThat(liveness.judgedAt(List.of(), NOW, 60_000)).isEqualTo(NOW);
    }
}
