package io.promptcache.schema.node;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.proto.ContinuationCopy;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExternalNodesTest {

    private static final String PREFIX = "promptcache.gc.storage.external.";

    record Endpoint(String endpoint, Optional<String> bucket, Optional<String> region, Optional<Boolean> pathStyle,
            long budgetBytes,
            Optional<String> copy, Optional<Long> minPartBytes, Optional<Boolean> createBucket,
            Optional<String> accessKeyId, Optional<String> secretAccessKey, Optional<Path> credentialsFile)
            implements
                ExternalNodes.Endpoint {

        static Endpoint of(String url, long budget) {
            return new Endpoint(url, Optional.empty(), Optional.empty(), Optional.empty(), budget, Optional.empty(),
                    Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());
        }

        Endpoint copy(String mode) {
            return new Endpoint(endpoint, bucket, region, pathStyle, budgetBytes, Optional.of(mode), minPartBytes,
                    createBucket, accessKeyId, secretAccessKey, credentialsFile);
        }

        Endpoint virtualHosted() {
            return new Endpoint(endpoint, bucket, region, Optional.of(false), budgetBytes, copy, minPartBytes,
                    createBucket, accessKeyId, secretAccessKey, credentialsFile);
        }
    }

    @Test
    void defaultsAreOneRule() {
        NodeStatus node = ExternalNodes.statuses(PREFIX, Map.of("minio", Endpoint.of("http://127.0.0.1:9100/", 1000)),
                "promptcache-kv").get("minio");
        assertThat(node.getNodeId()).isEqualTo("minio");
        assertThat(node.getEndpoint()).isEqualTo("http://127.0.0.1:9100");
        assertThat(node.getCapacityBytes()).isEqualTo(1000);
        assertThat(node.getState()).isEqualTo(NodeState.NODE_STATE_DOWN); // until a probe says otherwise
        assertThat(node.getExternal().getBucket()).isEqualTo("promptcache-kv");
        assertThat(node.getExternal().getRegion()).isEqualTo("us-east-1");
        assertThat(node.getExternal().getCopy()).isEqualTo(ContinuationCopy.CONTINUATION_COPY_COPY);
        assertThat(node.getExternal().getMinPartBytes()).isEqualTo(5L << 20);
        assertThat(node.getExternal().getCreateBucket()).isFalse();
        assertThat(ExternalNodes.pathStyle(node)).isTrue();
        assertThat(ExternalNodes.pathStyle(one(Endpoint.of("http://h:1", 10).virtualHosted()))).isFalse();
        assertThat(node.hasExternal()).isTrue();
        assertThat(ExternalNodes.copiesBytes(node)).isTrue();
        assertThat(ExternalNodes.bucketOf(node, "other")).isEqualTo("promptcache-kv");
    }

    @Test
    void continuationsFollowTheCopyModeAndTheSmallestPart() {
        NodeStatus copying = one(Endpoint.of("http://h:1", 10));
        assertThat(ExternalNodes.continues(copying, (5L << 20) - 1)).isFalse();
        assertThat(ExternalNodes.continues(copying, 5L << 20)).isTrue();
        NodeStatus none = one(Endpoint.of("http://h:1", 10).copy("none"));
        assertThat(ExternalNodes.continues(none, 1L << 30)).isFalse();
        NodeStatus sharing = one(Endpoint.of("http://h:1", 10).copy("REFERENCE"));
        assertThat(ExternalNodes.copiesBytes(sharing)).isFalse();
        NodeStatus ours = NodeStatus.newBuilder().setNodeId("node-1").build();
        assertThat(ExternalNodes.continues(ours, 1)).isTrue();
        assertThat(ExternalNodes.copiesBytes(ours)).isFalse();
        assertThat(ExternalNodes.bucketOf(ours, "kv-bucket")).isEqualTo("kv-bucket");
    }

    @Test
    void aWrongSettingIsNamed() {
        assertThatThrownBy(() -> one(Endpoint.of("ftp://h", 10))).hasMessageContaining(PREFIX + "s3.endpoint");
        assertThatThrownBy(() -> one(Endpoint.of("http://h:1/path", 10))).hasMessageContaining("http(s)://host");
        assertThatThrownBy(() -> one(Endpoint.of("http://h:1", 0))).hasMessageContaining(PREFIX + "s3.budget-bytes");
        assertThatThrownBy(() -> one(Endpoint.of("http://h:1", 10).copy("maybe")))
                .hasMessageContaining(PREFIX + "s3.copy is reference, copy or none");
        assertThatThrownBy(() -> ExternalNodes.statuses(PREFIX, Map.of("a b", Endpoint.of("http://h:1", 10)), "b"))
                .hasMessageContaining("not a valid node id");
        assertThatThrownBy(() -> ExternalNodes.statuses(PREFIX, new java.util.TreeMap<>(Map.of("a",
                Endpoint.of("http://h:1", 10), "b", Endpoint.of("http://h:1/", 10))), "b"))
                .hasMessageContaining(PREFIX + "a.endpoint and " + PREFIX + "b.endpoint are the same URL");
    }

    @Test
    void probesSetStateAndFreshness() {
        NodeStatus node = one(Endpoint.of("http://h:1", 10));
        NodeStatus up = ExternalNodes.probed(node, true, 5_000);
        assertThat(up.getState()).isEqualTo(NodeState.NODE_STATE_UP);
        assertThat(up.getHeartbeatAtMs()).isEqualTo(5_000);
        NodeStatus down = ExternalNodes.probed(up, false, 9_000);
        assertThat(down.getState()).isEqualTo(NodeState.NODE_STATE_DOWN);
        assertThat(NodeLiveness.ofIntervals(3).serves(down, 9_000)).isFalse();
        assertThat(NodeLiveness.ofIntervals(3).serves(up, 9_000)).isTrue();
    }

    @Test
    void withoutProbesAnEndpointIsAsFreshAsTheNewestHeartbeatAndHidesNoStall() {
        NodeStatus external = one(Endpoint.of("http://h:1", 10));
        NodeStatus stalled = NodeStatus.newBuilder().setNodeId("node-1").setEndpoint("http://n:1")
                .setState(NodeState.NODE_STATE_UP).setHeartbeatAtMs(1_000).setHeartbeatIntervalMs(1_000).build();
        NodeStatus held = ExternalNodes.asOf(external, List.of(stalled, external), 60_000);
        assertThat(held.getHeartbeatAtMs()).isEqualTo(1_000);
        assertThat(held.getState()).isEqualTo(NodeState.NODE_STATE_UP);
        NodeLiveness liveness = new NodeLiveness(3, 30_000);
        assertThat(liveness.judgedAt(List.of(stalled, held), 60_000, Long.MAX_VALUE))
                .isEqualTo(liveness.judgedAt(List.of(stalled), 60_000, Long.MAX_VALUE));
        assertThat(ExternalNodes.asOf(external, List.of(), 60_000).getHeartbeatAtMs()).isEqualTo(60_000);
    }

    private static NodeStatus one(Endpoint endpoint) {
        return ExternalNodes.statuses(PREFIX, Map.of("s3", endpoint), "promptcache-kv").get("s3");
    }
}
