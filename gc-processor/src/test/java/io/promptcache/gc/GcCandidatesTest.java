package io.promptcache.gc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.gc.testing.Metrics;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Room on demand on the real broker and a real storage node (1 MiB, reclaiming on demand: the default): the GC
 * keeps its next victims (at least down to the low watermark, 80 %) nominated as eviction candidates, still LIVE
 * and served;
 * a write to the full node is never refused - the node deletes the least recently used candidate (a range GET of the
 * whole object on the node counts as a use; one of its first bytes, a partial hit, does not) and reports it, and the GC tombstones it so lookups stop returning it.
 */
@QuarkusTest
@StorageNodeFixture.NodeConfig("promptcache.storage.capacity-bytes=" + GcCandidatesTest.CAPACITY)
class GcCandidatesTest extends NodeBackedGcTest {

    private static final long KIB = 1024;
    static final long CAPACITY = 1024 * KIB;
    private static final long OBJECT = 64 * KIB;
    private static final String RECLAIMED = "promptcache_gc_candidates_total{event=\"reclaimed_by_node\"}";
    private static final String SKIPPED_GONE = "promptcache_gc_deletes_total{outcome=\"skipped_gone\"}";
    @Test
    void shouldAdmitEveryWriteToAFullNodeByDeletingTheLeastRecentlyUsedCandidate() {
        // Given: 16 objects of 64 KiB fill the node, object i used before object i+1
        double reclaimedBefore = Metrics.value(RECLAIMED);
        double skippedBefore = Metrics.value(SKIPPED_GONE);
        long now = System.currentTimeMillis();
        List<ObjectRecord> objects = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            ObjectRecord record = cluster.upload(OBJECT, now - (16 - i) * 1000L, 0);
            cluster.register(record, key(i));
            objects.add(record);
        }
        // Then: at least the 4 least recently used (down to 80 %; more when the objects arrived within few rounds:
        // candidates also cover twice the busiest round) become candidates on the node, and nothing is tombstoned
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> node.reclaimableBytes() >= 4 * OBJECT);
        Map<ObjectId, ObjectRecord> latest = cluster.latest(Topics.OBJECTS);
        for (ObjectRecord record : objects) {
            assertThat(latest.get(Records.idOf(record)).getState()).isEqualTo(ObjectState.OBJECT_STATE_LIVE);
            assertThat(cluster.rangeGet(record.getKey(), 100)).as("a candidate is still served").isPresent();
        }

        // When: object 0 is hit again, all of it (the reads of its first bytes above were partial hits: no use), and
        // two more objects are written to the full node
        assertThat(cluster.rangeGet(objects.get(0).getKey(), OBJECT)).isPresent();
        ObjectRecord extra1 = cluster.upload(OBJECT, System.currentTimeMillis(), 0);
        cluster.register(extra1, key(16));

        // Then: the write was admitted (no 507) by deleting a candidate, the least recently used: object 1
        assertThat(node.usedBytes()).isEqualTo(CAPACITY);
        assertThat(cluster.rangeGet(objects.get(1).getKey(), 100)).as("reclaimed candidate").isEmpty();
        assertThat(cluster.rangeGet(objects.get(0).getKey(), 100)).as("candidate used again").isPresent();
        // and the GC, told by the node's heartbeat, tombstoned it (reason node budget): lookups stop returning it
        ObjectId reclaimed = Records.idOf(objects.get(1));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(cluster.history(Topics.OBJECTS))
                .anySatisfy(e -> {
                    assertThat(e.getKey()).isEqualTo(reclaimed);
                    assertThat(e.getValue()).isNotNull();
                    assertThat(e.getValue().getState()).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
                    assertThat(e.getValue().getTombstone().getReason())
                            .isEqualTo(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET);
                    assertThat(e.getValue().getTombstone().getDeletedOnList()).containsExactly(node.nodeId());
                }));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> cluster.latest(Topics.PREFIXES).get(key(1)) == null);
        Map<ObjectId, ObjectRecord> after = cluster.latest(Topics.OBJECTS);
        for (int i : new int[]{0, 2, 3}) {
            assertThat(after.get(Records.idOf(objects.get(i))).getState()).as("object %d", i)
                    .isEqualTo(ObjectState.OBJECT_STATE_LIVE);
        }
        assertThat(Metrics.value(RECLAIMED) - reclaimedBefore).isEqualTo(1.0);
        // phase two sent the node no DELETE for it: the node had said it was gone
        assertThat(Metrics.value(SKIPPED_GONE) - skippedBefore).isEqualTo(1.0);
    }

    private static PrefixKey key(int i) {
        return Records.prefixKey(2000 + i);
    }
}
