package io.promptcache.schema.node;

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
}
