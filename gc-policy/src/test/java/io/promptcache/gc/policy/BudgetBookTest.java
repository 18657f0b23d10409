package io.promptcache.gc.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.proto.ExternalEndpoint;
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
    private static final long HORIZON = 4000;

    private final BudgetBook book = new BudgetBook();

    @Test
    void shouldEvictNothingUnderTheHighWatermark() {
        // Given: 9 objects of 100 bytes on a 1000-byte node (90 % = the high watermark, not above it)
        for (int i = 0; i < 9; i++) {
            put(object("n1", 100, 0, NOW - i * 1000));
        }

        // When / Then
        assertThat(book.plan(POLICY, nodes(node("n1", 1000)), NOW, HORIZON)).isEmpty();
    }

    @Test
    void shouldNominateCandidatesInsteadOfTombstoningOnANodeThatReclaimsOnDemand() {
        // Given: a full node that reclaims on demand, 10 objects of 100 bytes, object i last used i seconds ago
        Policy reclaiming = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), LIVENESS, true);
        Map<String, NodeStatus> heartbeats = nodes(node("n1", 1000).toBuilder().setReclaimsOnDemand(true).build());
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }

        // When / Then: nothing is tombstoned for the node's budget (the node keeps it)...
        assertThat(book.plan(reclaiming, heartbeats, NOW, HORIZON)).isEmpty();
        // ...the two least recently used (down to the low watermark) are nominated, with their last use
        assertThat(book.nominate(reclaiming, heartbeats, 100)).containsExactly(
                new Nomination(ids.get(9), "n1", NOW - 9000), new Nomination(ids.get(8), "n1", NOW - 8000));
        assertThat(book.usage().nodes().get("n1").live()).as("candidates stay LIVE").isEqualTo(1000);
        assertThat(book.nominate(reclaiming, heartbeats, 100)).as("nominated once").isEmpty();
        // a nomination that did not reach the node is made again; at most max per call
        book.unnominate(ids.get(8));
        assertThat(book.nominate(reclaiming, heartbeats, 1)).containsExactly(
                new Nomination(ids.get(8), "n1", NOW - 8000));
        // a candidate the node deleted (tombstoned by the GC) leaves the set; the next one is nominated
        book.put(ids.get(9), null);
        put(object("n1", 100, 0, NOW));
        assertThat(book.nominate(reclaiming, heartbeats, 100)).containsExactly(
                new Nomination(ids.get(7), "n1", NOW - 7000));
        // a node that does not reclaim on demand keeps the watermark rule
        assertThat(book.nominate(reclaiming, nodes(node("n1", 1000)), 100)).isEmpty();
        assertThat(book.plan(reclaiming, nodes(node("n1", 1000)), NOW, HORIZON)).isNotEmpty();
    }

    @Test
    void shouldNominateEnoughCandidatesForTwiceTheBusiestRecentRound() {
        // Given: a node of 1000 bytes that reclaims on demand: 6 objects known at start, then 4 arriving in one round
        Policy reclaiming = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), LIVENESS, true);
        Map<String, NodeStatus> heartbeats = nodes(node("n1", 1000).toBuilder().setReclaimsOnDemand(true).build());
        for (int i = 0; i < 6; i++) {
            put(object("n1", 100, 0, NOW - 10_000 - i * 1000L));
        }
        book.plan(reclaiming, heartbeats, NOW, 2000, 1000);
        for (int i = 0; i < 4; i++) {
            put(object("n1", 100, 0, NOW + i));
        }
        book.plan(reclaiming, heartbeats, NOW + 1000, 2000, 1000);

        // When / Then: candidates cover 2 x 400 bytes (below the low watermark's 200): 8 objects, oldest first
        assertThat(book.nominate(reclaiming, heartbeats, 100)).hasSize(8).extracting(Nomination::lastUseMs)
                .startsWith(NOW - 15_000, NOW - 14_000);
    }

    @Test
    void shouldNominateFromTheNodesOwnUsedBytesWhenTheGcHasNotReadEveryStoreYet() {
        // Given: a node of 1000 bytes that reclaims on demand reports 1000 bytes used; this GC has read only 7 of its
        // objects (700 bytes: the low watermark's 800 is not even reached in its own view)
        Policy reclaiming = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), LIVENESS, true);
        NodeStatus full = node("n1", 1000).toBuilder().setReclaimsOnDemand(true).setUsedBytes(1000).build();
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }

        // When / Then: candidates bring the node's 1000 bytes to 800: the two least recently used it knows
        assertThat(book.nominate(reclaiming, nodes(full), 100)).containsExactly(
                new Nomination(ids.get(6), "n1", NOW - 6000), new Nomination(ids.get(5), "n1", NOW - 5000));
        // by its own view alone (a heartbeat without used bytes) nothing would have been nominated
        BudgetBook other = new BudgetBook();
        for (int i = 0; i < 7; i++) {
            other.put(ObjectId.generate(), new GcObject(object("n1", 100, 0, NOW - i * 1000L), 0,
                    false));
        }
        assertThat(other.nominate(reclaiming, nodes(full.toBuilder().setUsedBytes(0).build()), 100)).isEmpty();
    }

    @Test
    void shouldEvictLeastRecentlyUsedDownToTheLowWatermarkWhenOverTheHighOne() {
        // Given: 10 objects of 100 bytes (100 %), object i last used i seconds ago
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1000)), NOW, HORIZON);

        // Then: the two oldest go (live 800 = low watermark), for the node budget; bytes stay held until deleted
        assertThat(plan).containsExactly(new Eviction(ids.get(9), TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET),
                new Eviction(ids.get(8), TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET));
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(1000, 800, 10, 0));
        assertThat(book.plan(POLICY, nodes(node("n1", 1000)), NOW, HORIZON)).as("retired objects are not chosen again")
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
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 10)), NOW, HORIZON);

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
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1000)), NOW, HORIZON);

        // Then: live 500 is already under the low watermark; nothing more is evicted while the grace runs
        assertThat(plan).isEmpty();
    }

    @Test
    void shouldCapTheLiveBytesOfAnExternalEndpointAndLeaveItsBytesInGraceToTheirDeletes() {
        // Given: under a policy without reclaim on demand (held bytes count on every node), a 1000-byte budget holding
        // 1 tombstoned object (in grace) of 100 bytes and 9 LIVE ones, 850 bytes: held 950 > 900 > live
        put(object("s3", 100, 0, NOW).toBuilder().setState(ObjectState.OBJECT_STATE_TOMBSTONED).build());
        List<ObjectId> live = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            live.add(put(object("s3", i == 8 ? 50 : 100, 0, NOW - 10 + i)));
        }
        NodeStatus external = node("s3", 1000).toBuilder()
                .setExternal(ExternalEndpoint.newBuilder().setBucket("b")).build();

        // When / Then: on an external endpoint the budget caps the live bytes (850 < 900): nothing is evicted for
        // bytes that only wait for their DELETE
        assertThat(book.plan(POLICY, nodes(external), NOW, HORIZON)).isEmpty();
        // on a node of ours, held to the same policy, held bytes count: live down to 800
        assertThat(book.plan(POLICY, nodes(node("s3", 1000)), NOW, HORIZON)).extracting(Eviction::id)
                .containsExactly(live.get(0));
    }

    @Test
    void shouldExpireObjectsUnusedLongerThanTheTtlWhateverTheirPriority() {
        // Given
        ObjectId expired = put(object("n1", 100, 100, NOW - 8 * DAY));
        ObjectId fresh = put(object("n1", 100, -100, NOW - 6 * DAY));
        ObjectId pinned = put(object("n1", 100, 0, NOW - 30 * DAY).toBuilder().setPinned(true).build());

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1_000_000)), NOW, HORIZON);

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
        List<Eviction> plan = book.plan(quotas, nodes(node("n1", 1_000_000)), NOW, HORIZON);

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
        List<Eviction> plan = book.plan(global, nodes(node("n1", 10_000), node("n2", 10_000)), NOW, HORIZON);

        // Then: live <= 210
        assertThat(plan).extracting(Eviction::id).containsExactly(oldest, second);
        assertThat(plan).extracting(Eviction::reason).containsOnly(TombstoneReason.TOMBSTONE_REASON_GLOBAL_BUDGET);
        assertThat(book.usage().total()).isEqualTo(new Usage.Bytes(400, 200, 4, 0));
    }

    @Test
    void shouldDropEveryLiveObjectOfALostNode() {
        // Given: n2's last heartbeat is older than lost-after; n3 never sent one
        put(object("n1", 100, 0, NOW));
        ObjectId onSilent = put(object("n2", 100, 0, NOW));
        ObjectId onUnknown = put(object("n3", 100, 0, NOW));
        NodeStatus silent = node("n2", 10_000).toBuilder().setHeartbeatAtMs(NOW - 600_000).build();

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 10_000), silent), NOW, HORIZON);

        // Then
        assertThat(plan).containsExactlyInAnyOrder(
                new Eviction(onSilent, TombstoneReason.TOMBSTONE_REASON_NODE_LOST),
                new Eviction(onUnknown, TombstoneReason.TOMBSTONE_REASON_NODE_LOST));
    }

    @Test
    void shouldGiveNoNodeUpWhenEveryHeartbeatStoppedAtOnce() {
        // Given: no heartbeat from any node for 10 minutes (the broker was down), n2's stopped 2 s before n1's
        put(object("n1", 100, 0, NOW));
        put(object("n2", 100, 0, NOW));
        NodeStatus n1 = node("n1", 10_000).toBuilder().setHeartbeatAtMs(NOW - 600_000).build();
        NodeStatus n2 = node("n2", 10_000).toBuilder().setHeartbeatAtMs(NOW - 602_000).build();

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(n1, n2), NOW, HORIZON);

        // Then: the stall of the feed is no reason to retire their objects
        assertThat(plan).isEmpty();
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
        assertThat(book.usage().total()).isEqualTo(new Usage.Bytes(0, 0, 0, 0));
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

    @Test
    void shouldNotCountObjectsKnownBeforeTheFirstPlanAsInflow() {
        // Given: 5 objects of 100 bytes restored on a 1000-byte node
        for (int i = 0; i < 5; i++) {
            put(object("n1", 100, 0, NOW - i));
        }

        // When
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 1000)), NOW, HORIZON);

        // Then
        assertThat(plan).isEmpty();
        assertThat(book.usage().nodes().get("n1").inflow()).isZero();
    }

    @Test
    void shouldLowerTheLiveTargetByTheSustainedInflow() {
        // Given: a 1000-byte node, horizon 2 s, a plan every 500 ms; 100 bytes arrive before each plan
        long horizon = 2000;
        Map<String, NodeStatus> n1 = nodes(node("n1", 1000));
        book.plan(POLICY, n1, NOW, horizon);
        List<ObjectId> ids = new ArrayList<>();
        for (int plan = 1; plan <= 3; plan++) {
            ids.add(put(object("n1", 100, 0, NOW + plan)));
            assertThat(book.plan(POLICY, n1, NOW + plan * 500L, horizon)).as("no rate before 4 plans").isEmpty();
        }
        ids.add(put(object("n1", 100, 0, NOW + 4)));
        ids.add(put(object("n1", 100, 0, NOW + 5)));
        ids.add(put(object("n1", 100, 0, NOW + 6)));

        // When: 4 quarters seen, the slowest 100 bytes per 500 ms: 400 bytes per horizon; live 600 + 400 > 900
        List<Eviction> plan = book.plan(POLICY, n1, NOW + 2000, horizon);

        // Then: live down to 900 - 400 = 500, the oldest first; the tombstone is not counted as an arrival
        assertThat(plan).extracting(Eviction::id).containsExactly(ids.get(0));
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(600, 500, 6, 400));
        assertThat(book.plan(POLICY, n1, NOW + 2500, horizon)).as("nothing new arrived").isEmpty();
        assertThat(book.usage().nodes().get("n1").inflow()).as("a quarter without arrivals").isZero();
    }

    @Test
    void shouldNotTakeAOneOffBurstForARate() {
        // Given: plans every 500 ms on a 1000-byte node; 1000 bytes arrive at once, split over two plans
        Map<String, NodeStatus> n1 = nodes(node("n1", 1000));
        book.plan(POLICY, n1, NOW, HORIZON);
        for (int i = 0; i < 5; i++) {
            put(object("n1", 100, 0, NOW + i));
        }
        book.plan(POLICY, n1, NOW + 500, HORIZON);
        for (int i = 5; i < 10; i++) {
            put(object("n1", 100, 0, NOW + i));
        }

        // When: the plans after it, for a whole horizon
        List<Eviction> evicted = new ArrayList<>();
        for (long t = NOW + 1000; t <= NOW + 1000 + HORIZON; t += 500) {
            evicted.addAll(book.plan(POLICY, n1, t, HORIZON));
            assertThat(book.usage().nodes().get("n1").inflow()).as("inflow at %d", t - NOW).isZero();
        }

        // Then: the plain watermarks: down to 800 live once, not to 900 - 1000
        assertThat(evicted).hasSize(2);
    }

    @Test
    void shouldKeepHeldBytesUnderTheHighWatermarkUnderALoadLargerThanTheWatermarkGap() {
        // Given: 100 bytes/s (10 % of the node per second) for 60 s in 5-byte objects; a tombstone frees its bytes 3 s later
        // (grace 2 s + delete lag 1 s), so 300 bytes are always in grace: three times the 100-byte watermark gap

        // When
        long peakWithLookAhead = peakHeld(new BudgetBook(), HORIZON);
        long peakWithout = peakHeld(new BudgetBook(), 0);

        // Then: held bytes stay under the high watermark; without the look-ahead (horizon 0) they reach the low
        // watermark plus everything in grace, over the capacity
        assertThat(peakWithLookAhead).isLessThanOrEqualTo(900);
        assertThat(peakWithout).isGreaterThan(1000);
    }

    /** Simulates one node under a steady store load, a plan every 250 ms; returns the held bytes at their peak. */
    private static long peakHeld(BudgetBook sim, long horizon) {
        Map<ObjectId, Long> removeAt = new HashMap<>();
        long peak = 0;
        for (int quarter = 0; quarter < 240; quarter++) {
            long now = NOW + quarter * 250L;
            for (int i = 0; i < 5; i++) {
                sim.put(ObjectId.generate(), new GcObject(object("n1", 5, 0, now + i), 0, false));
            }
            removeAt.entrySet().removeIf(due -> {
                if (due.getValue() <= now) {
                    sim.put(due.getKey(), null);
                    return true;
                }
                return false;
            });
            peak = Math.max(peak, sim.usage().nodes().get("n1").held());
            NodeStatus node = node("n1", 1000).toBuilder().setHeartbeatAtMs(now).build();
            for (Eviction eviction : sim.plan(POLICY, Map.of("n1", node), now, horizon)) {
                removeAt.put(eviction.id(), now + 3000);
            }
        }
        return peak;
    }

    @Test
    void shouldCountSharedBytesOnceAndFreeThemWithTheirLastHolder() {
        // Given: a conversation on one node - turn 1 (300 bytes), turn 2 sharing all of it plus 100 new bytes (turn 1
        // is superseded: turn 2 advertises all its prefixes), an unrelated older object of 300 bytes
        ObjectId old = put(object("n1", 300, 0, NOW - 10_000));
        ObjectRecord turn1Record = object("n1", 300, 0, NOW - 5000);
        ObjectId turn1 = put(turn1Record, true);
        ObjectId turn2 = put(continuation(turn1, turn1Record, 300, 400, NOW - 1000));
        // Then: physical bytes count the shared 300 once
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(700, 700, 3, 0));

        // When: the node (625 bytes: high 562, low 500) must shed down to 500
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 625)), NOW, HORIZON);

        // Then: the superseded turn 1 goes first and frees nothing (turn 2 shares it), then the oldest object
        assertThat(plan).extracting(Eviction::id).containsExactly(turn1, old);
        assertThat(book.usage().nodes().get("n1").live()).isEqualTo(400);

        // When: turn 2 goes too, the shared bytes go with it; then the books forget everything
        assertThat(book.plan(POLICY, nodes(node("n1", 100)), NOW, HORIZON)).extracting(Eviction::id)
                .containsExactly(turn2);
        assertThat(book.usage().nodes().get("n1").live()).isZero();
        assertThat(book.usage().nodes().get("n1").held()).isEqualTo(700);
        book.put(turn1, null);
        assertThat(book.usage().nodes().get("n1").held()).as("turn 2 in grace still holds turn 1's bytes")
                .isEqualTo(700);
        book.put(turn2, null);
        book.put(old, null);
        assertThat(book.usage().nodes()).doesNotContainKey("n1");
    }

    @Test
    void shouldFreeOnlyTheTailOfAVictimWhoseFirstBytesALiveContinuationStillUses() {
        // Given: a parent still serving its own prefixes (not superseded, the oldest) and a newer branch sharing
        // its first 200 bytes
        ObjectRecord parentRecord = object("n1", 300, 0, NOW - 9000);
        ObjectId parent = put(parentRecord);
        ObjectId branch = put(continuation(parent, parentRecord, 200, 250, NOW - 1000));
        ObjectId other = put(object("n1", 200, 0, NOW - 5000));
        assertThat(book.freedBy(parent)).as("the tail the branch does not read").isEqualTo(100);
        // When: 550 live bytes on a node that must come down to 400 or less (capacity 500: high 450, low 400)
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 500)), NOW, HORIZON);
        // Then: the parent goes first and frees its last 100 bytes (the node trims them); its first 200 stay with
        // the branch; 450 is still above 400, so the next one goes too
        assertThat(plan).extracting(Eviction::id).containsExactly(parent, other);
        assertThat(book.usage().nodes().get("n1").live()).isEqualTo(250);
        assertThat(book.freedBy(branch)).isEqualTo(250);
    }

    @Test
    void shouldSkipAVictimWhoseBytesALiveContinuationStillUses() {
        // Given: a parent (the oldest) whose every byte a newer continuation shares, and another object
        ObjectRecord parentRecord = object("n1", 300, 0, NOW - 9000);
        ObjectId parent = put(parentRecord);
        ObjectId child = put(continuation(parent, parentRecord, 300, 350, NOW - 1000));
        ObjectId other = put(object("n1", 200, 0, NOW - 5000));
        // When: 550 live bytes that must come down to 400 or less
        List<Eviction> plan = book.plan(POLICY, nodes(node("n1", 500)), NOW, HORIZON);
        // Then: the parent would free nothing, so the next one goes
        assertThat(plan).extracting(Eviction::id).containsExactly(other);
        assertThat(book.usage().nodes().get("n1").live()).isEqualTo(350);
        // and once the continuation is gone, the parent frees its bytes and may go
        assertThat(book.plan(POLICY, nodes(node("n1", 100)), NOW, HORIZON)).extracting(Eviction::id)
                .containsExactly(child, parent);
    }

    @Test
    void shouldKeepADeletedWriterUntilNoLiveObjectReadsItsBytes() {
        // Given: turn 1 (300 bytes), turn 2 sharing all of it plus 100, an unrelated object; turn 1 evicted and its
        // bytes deleted on the node (the node keeps them for turn 2)
        ObjectRecord turn1Record = object("n1", 300, 0, NOW - 9000);
        ObjectId turn1 = put(turn1Record);
        ObjectRecord turn2Record = continuation(turn1, turn1Record, 300, 400, NOW - 1000);
        ObjectId turn2 = put(turn2Record);
        ObjectId alone = put(object("n1", 100, 0, NOW - 5000));
        ObjectRecord gone = BudgetBook.retired(turn1Record);
        book.put(turn1, new GcObject(gone, 0, false, true));
        book.put(alone, new GcObject(BudgetBook.retired(object("n1", 100, 0, NOW - 5000)), 0, false, true));

        // Then: the deleted turn 1 holds nothing itself (turn 2 holds its bytes) but stays while turn 2 reads them;
        // the unrelated one can go at once
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(400, 400, 1, 0));
        assertThat(book.unread()).containsExactly(alone);
        book.put(alone, null);

        // When: turn 2 is tombstoned (in grace: it still holds, but no LIVE object reads turn 1's bytes)
        book.put(turn2, new GcObject(BudgetBook.retired(turn2Record), 0, false));

        // Then: turn 1's record (and so its keys) may go now
        assertThat(book.unread()).containsExactly(turn1);
        assertThat(book.usage().nodes().get("n1").held()).isEqualTo(400);
    }

    @Test
    void shouldCountBytesInGraceAsRoomWhenNodesReclaimOnDemand() {
        // Given: 10 objects of 100 bytes on a 1000-byte node, 3 of them already tombstoned (in their grace window)
        Policy reclaiming = new Policy(0.9, 0.8, 7 * DAY, 0, Map.of(), LIVENESS, true);
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }
        List<Eviction> first = book.plan(reclaiming, nodes(node("n1", 1000)), NOW, HORIZON);
        assertThat(first).hasSize(2);
        assertThat(book.usage().nodes().get("n1")).isEqualTo(new Usage.Bytes(1000, 800, 10, 0));
        // When / Then: held 1000 > 900 but live 800: the node deletes the evicted bytes when it needs them, so no
        // further eviction (without reclaim on demand the held bytes would trigger one)
        assertThat(book.plan(reclaiming, nodes(node("n1", 1000)), NOW, HORIZON)).isEmpty();
        put(object("n1", 150, 0, NOW));
        assertThat(book.plan(reclaiming, nodes(node("n1", 1000)), NOW, HORIZON)).as("live 950 > 900")
                .extracting(Eviction::id).containsExactly(ids.get(7), ids.get(6));
    }

    @Test
    void shouldShedFromAFullNodeAtAHighWatermarkOfOneWhenNodesReclaimOnDemand() {
        // Given: a node exactly full of live bytes (it cannot grow past its capacity to exceed the watermark)
        Policy full = new Policy(1.0, 0.99, 7 * DAY, 0, Map.of(), LIVENESS, true);
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ids.add(put(object("n1", 100, 0, NOW - i * 1000L)));
        }
        // When / Then: the least recently used goes, so the node has room for the next write
        assertThat(book.plan(full, nodes(node("n1", 1000)), NOW, HORIZON)).extracting(Eviction::id)
                .containsExactly(ids.get(9));
    }

    private ObjectRecord continuation(ObjectId parent, ObjectRecord parentRecord, long shared, long total,
            long createdAt) {
        return object("n1", total, 0, createdAt).toBuilder().setParentObjectId(parent.toString())
                .setSharedBytes(shared)
                .addAllShared(io.promptcache.schema.object.SharedBytes.continuing(parent.toString(), parentRecord,
                        shared))
                .build();
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
