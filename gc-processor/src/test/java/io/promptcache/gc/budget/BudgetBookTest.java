package io.promptcache.gc.budget;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.gc.storage.NodeLiveness;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;

import static org.assertj.core.api.Assertions.assertThat;

class BudgetBookTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final long DAY = 86_400_000L;
    private static final NodeLiveness LIVENESS = new NodeLiveness(3, 300_000);
    private static final Policy POLICY = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), LIVENESS);

    private final BudgetBook book = new BudgetBook();

    @Test
    void shouldEvictNothingUnderTheHighWatermark() {
        // Given: 9 objects of 100 bytes on a 1000-byte node (90 % = the high watermark, not above it)
        for (int i = 0; i < 9; i++) {
            put(object("n1", 100, 0, NOW - i * 1000));
        }

        // When / Then
        assertThat(book.plan(POLICY, nodes(node("n1", 1000)), NOW)).isEmpty();
    }

    @Test
    void shouldEvictLeastRecentlyUsedDownToTheLowWatermarkWhenOverTheHighOne() {
        // Given: 10 objects of 100 bytes (100 %), object i last used i seconds ago
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1000)), NOW);

        // Then: the two oldest go (live 800 = low watermark), for the node budget; bytes stay held until deleted
        assertThat(plan).containsExactly(new Eviction(ids.get(9), TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET),
                new Eviction(ids.get(8), TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET));
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(1000, 800, 10));
        assertThat(book.plan(POLICY, nodes(node("n1", 1000)), NOW)).as("retired objects are not chosen again")
                .isEmpty();
    }

    @Test
    void shouldEvictSupersededThenLowestPriorityThenLruThenLongestPrefix() {
        // Given
        ObjectId recentLowPriority = put(object("n1", 100, -1, NOW));
        ObjectId oldHighPriority = put(object("n1", 100, 5, NOW - DAY));
        ObjectId recentSuperseded = put(object("n1", 100, 9, NOW), true);
        ObjectId oldNormal = put(object("n1", 100, 0, NOW - 5000));
        ObjectId sameAgeShort = put(withBlocks(object("n1", 100, 0, NOW - 1000), 2));
        ObjectId sameAgeLong = put(withBlocks(object("n1", 100, 0, NOW - 1000), 8));
        ObjectId pinned = put(object("n1", 100, -9, NOW - 2 * DAY).toBuilder().setPinned(true).build());

        // When: a tiny node forces everything evictable out
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 10)), NOW);

        // Then
        assertThat(plan).extracting(Eviction::id).containsExactly(recentSuperseded, recentLowPriority, oldNormal,
                sameAgeLong, sameAgeShort, oldHighPriority).doesNotContain(pinned);
    }

    @Test
    void shouldNotCountTombstonedBytesAsReclaimableAgain() {
        // Given: 5 tombstoned (in grace) + 5 LIVE of 100 bytes on a 1000-byte node: held 1000 > 900
        for (int i = 0; i < 5; i++) {
            put(object("n1", 100, 0, NOW).toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build());
        }
        for (int i = 0; i < 5; i++) {
            put(object("n1", 100, 0, NOW - i));
        }

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1000)), NOW);

        // Then: live 500 is already under the low watermark; nothing more is evicted while the grace runs
        assertThat(plan).isEmpty();
    }

    @Test
    void shouldExpireObjectsUnusedLongerThanTheTtlWhateverTheirPriority() {
        // Given
        ObjectId expired = put(object("n1", 100, 100, NOW - 8 * DAY));
        ObjectId fresh = put(object("n1", 100, -100, NOW - 6 * DAY));
        ObjectId pinned = put(object("n1", 100, 0, NOW - 30 * DAY).toBuilder().setPinned(true).build());

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1_000_000)), NOW);

        // Then
        assertThat(plan).containsExactly(new Eviction(expired, TombstoneReason.TOMBSTONE_REASON_TTL));
        assertThat(book.get(fresh).live()).isTrue();
        assertThat(book.get(pinned).live()).isTrue();
    }

    @Test
    void shouldEnforceTenantQuotasOnlyOnTheTenantsObjects() {
        // Given: tenant a holds 300 with a quota of 200; tenant b holds older objects
        ObjectId b1 = put(object("n1", 100, 0, NOW - DAY).toBuilder().setTenantId("b").build());
        ObjectId a1 = put(object("n1", 100, 0, NOW - 3000).toBuilder().setTenantId("a").build());
        ObjectId a2 = put(object("n1", 100, 0, NOW - 2000).toBuilder().setTenantId("a").build());
        put(object("n1", 100, 0, NOW - 1000).toBuilder().setTenantId("a").build());
        Policy quotas = new Policy(0.9, 0.8, 0, 0, Map.of("a", 200L), LIVENESS);

        // When
        List<Eviction> plan = book.plan(quotas, nodes(node("n1", 1_000_000)), NOW);

        // Then: down to 160 live -> two of a's, the oldest first; b untouched
        assertThat(plan).containsExactly(new Eviction(a1, TombstoneReason.TOMBSTONE_REASON_TENANT_QUOTA),
                new Eviction(a2, TombstoneReason.TOMBSTONE_REASON_TENANT_QUOTA));
        assertThat(book.get(b1).live()).isTrue();
    }

    @Test
    void shouldEnforceTheGlobalBudgetAcrossNodes() {
        // Given: 2 nodes with room, 400 bytes in total, global budget 300
        ObjectId oldest = put(object("n1", 100, 0, NOW - 4000));
        ObjectId second = put(object("n2", 100, 0, NOW - 3000));
        put(object("n1", 100, 0, NOW - 2000));
        put(object("n2", 100, 0, NOW - 1000));
        Policy global = new Policy(0.9, 0.7, 0, 300, Map.of(), LIVENESS);

        // When
        List<Eviction> plan = book.plan(global, nodes(node("n1", 10_000), node("n2", 10_000)), NOW);

        // Then: live <= 210
        assertThat(plan).extracting(Eviction::id).containsExactly(oldest, second);
        assertThat(plan).extracting(Eviction::reason).containsOnly(TombstoneReason.TOMBSTONE_REASON_GLOBAL_BUDGET);
        assertThat(book.usage().total()).isEqualTo(new Usage.Bytes(400, 200, 4));
    }

    @Test
    void shouldDropEveryLiveObjectOfALostNode() {
        // Given: n2's last heartbeat is older than lost-after; n3 never sent one
        put(object("n1", 100, 0, NOW));
        ObjectId onSilent = put(object("n2", 100, 0, NOW));
        ObjectId onUnknown = put(object("n3", 100, 0, NOW));
        NodeStatus silent = node("n2", 10_000).toBuilder().setHeartbeatAtMs(NOW - 600_000).build();

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 10_000), silent), NOW);

        // Then
        assertThat(plan).containsExactlyInAnyOrder(
                new Eviction(onSilent, TombstoneReason.TOMBSTONE_REASON_NODE_LOST),
                new Eviction(onUnknown, TombstoneReason.TOMBSTONE_REASON_NODE_LOST));
    }

    @Test
    void shouldForgetScopesWhoseObjectsAreAllRemoved() {
        // Given
        ObjectId id = put(object("n1", 100, 0, NOW));

        // When
        book.put(id, null);

        // Then
        assertThat(book.usage().nodes()).isEmpty();
        assertThat(book.usage().tenants()).isEmpty();
        assertThat(book.usage().total()).isEqualTo(new Usage.Bytes(0, 0, 0));
        assertThat(book.size()).isZero();
    }

    @Test
    void shouldCountEveryCopyOfAReplicatedObject() {
        // When
        put(object("n1", 100, 0, NOW).toBuilder().addNodes("n2").build());

        // Then
        assertThat(book.usage().nodes()).containsOnlyKeys("n1", "n2");
        assertThat(book.usage().total().held()).isEqualTo(200);
    }

    private ObjectId put(ObjectRecord record) {
        return put(record, false);
    }

    private ObjectId put(ObjectRecord record, boolean superseded) {
        ObjectId id = ObjectId.generate();
        book.put(id, new GcObject(record, 0, superseded));
        return id;
    }

    private static ObjectRecord object(String node, long bytes, int priority, long createdAt) {
        return ObjectRecord.newBuilder().setSchemaVersion(1).setState(ObjectState.OBJECT_STATE_LIVE)
                .setNamespaceId("00112233445566778899aabbccddeeff").addNodes(node).setBucket("b").setKey("k")
                .setTotalBytes(bytes).setBlocks(4).setPriority(priority).setCreatedAtMs(createdAt)
                .setTenantId("t").setOwnerId("t").build();
    }

    private static ObjectRecord withBlocks(ObjectRecord record, int blocks) {
        return record.toBuilder().setBlocks(blocks).build();
    }

    private static NodeStatus node(String id, long capacity) {
        return NodeStatus.newBuilder().setSchemaVersion(1).setNodeId(id).setEndpoint("http://127.0.0.1:1")
                .setCapacityBytes(capacity).setState(NodeState.NODE_STATE_UP).setHeartbeatAtMs(NOW)
                .setHeartbeatIntervalMs(1000).build();
    }

    private static Map<String, NodeStatus> nodes(NodeStatus... statuses) {
        Map<String, NodeStatus> map = new HashMap<>();
        for (NodeStatus s : statuses) {
            map.put(s.getNodeId(), s);
        }
        return map;
    }
}
