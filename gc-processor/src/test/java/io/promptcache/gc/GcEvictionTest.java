package io.promptcache.gc;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.gc.testing.Metrics;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

/**
 * The gc-processor on the real in-JVM broker against a real storage node (its own process, 1 MiB capacity) that does
 * not reclaim on demand (so the GC keeps it under its watermarks by tombstoning; {@link GcCandidatesTest} covers the
 * default), with the test profile's short grace window (5 s) and sweep intervals (application.properties, %test).
 */
@QuarkusTest
@StorageNodeFixture.NodeConfig({"promptcache.storage.capacity-bytes=" + GcEvictionTest.CAPACITY,
        "promptcache.storage.tier.ram-capacity-bytes=" + 8 * GcEvictionTest.CAPACITY,
        "promptcache.storage.reclaim-on-demand=false"})
class GcEvictionTest extends NodeBackedGcTest {

    private static final long KIB = 1024;
    static final long CAPACITY = 1024 * KIB;
    private static final String NODE_BUDGET_TOMBSTONES = "promptcache_gc_tombstones_total{reason=\"node_budget\"}";
    @Test
    void shouldKeepTheNodeUnderItsBudgetEvictingTheLeastRecentlyUsedAndServeReadersThroughTheGrace() {
        // Given: 16 objects of 64 KiB (100 % of the node), object i created before object i+1; registered together
        // once all are uploaded (a burst, which the GC's look-ahead does not take for a sustained inflow)
        double tombstonesBefore = Metrics.value(NODE_BUDGET_TOMBSTONES);
        long now = System.currentTimeMillis();
        List<ObjectRecord> uploaded = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            uploaded.add(cluster.upload(64 * KIB, now - (16 - i) * 1000L, 0));
        }
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            cluster.register(uploaded.get(i), key(i));
            ids.add(Records.idOf(uploaded.get(i)));
        }

        // When: the GC sees the node over its high watermark (90 %): the first tombstone appears
        ObjectRecord first = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                .until(() -> cluster.latest(Topics.OBJECTS).get(ids.get(0)),
                        r -> r != null && r.getState() == ObjectState.OBJECT_STATE_TOMBSTONED);

        // Then: a reader that looked it up before the tombstone still gets its range inside the grace window
        assertThat(System.currentTimeMillis()).as("still inside the grace window")
                .isLessThan(first.getTombstone().getDeleteAfterMs());
        assertThat(cluster.rangeGet(first.getKey(), 1000)).as("range GET inside the grace window").isPresent();
        assertThat(first.getTombstone().getReason()).isEqualTo(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET);

        // Then: after the grace window, the 4 least recently used (down to 80 % live) are gone from the node and
        // from both topics; the 12 others stay
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Map<ObjectId, ObjectRecord> objects = cluster.latest(Topics.OBJECTS);
            for (int i = 0; i < 16; i++) {
                if (i < 4) {
                    assertThat(objects.get(ids.get(i))).as("record of evicted object %d", i).isNull();
                } else {
                    assertThat(objects.get(ids.get(i))).as("record of kept object %d", i).isNotNull()
                            .extracting(ObjectRecord::getState).isEqualTo(ObjectState.OBJECT_STATE_LIVE);
                }
            }
        });
        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(first.getTombstone().getDeleteAfterMs());
        Map<PrefixKey, PrefixEntry> prefixes = cluster.latest(Topics.PREFIXES);
        for (int i = 0; i < 16; i++) {
            Optional<byte[]> bytes = cluster.rangeGet(Records.live(ids.get(i), node.nodeId(), 0, 0).getKey(), 10);
            assertThat(bytes.isPresent()).as("bytes of object %d on the node", i).isEqualTo(i >= 4);
            assertThat(prefixes.get(key(i)) != null).as("prefix of object %d", i).isEqualTo(i >= 4);
        }
        assertThat(cluster.history(Topics.OBJECTS).stream()
                .filter(e -> e.getKey().equals(ids.get(0)) && e.getValue() == null)).as("deleted exactly once")
                .hasSize(1);
        assertGoneFromBothTopicsAfterCompaction(ids.subList(0, 4),
                IntStream.range(0, 4).mapToObj(GcEvictionTest::key).toList(), ids.subList(4, 16));
        assertThat(Metrics.value(NODE_BUDGET_TOMBSTONES) - tombstonesBefore).isEqualTo(4.0);
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("promptcache_gc_bytes{kind=\"limit\",name=\"" + node.nodeId()
                        + "\",scope=\"node\"} " + (double) CAPACITY));
    }

    @Test
    void shouldKeepRunningThroughBadInputAndSayWhatItDid() {
        // Given: a poison record, a heartbeat from a node nobody knows (unreachable), a tombstone for an object
        // nobody registered, an access to an unknown object
        cluster.sendRaw(Topics.OBJECTS, ObjectId.generate().toBytes(), "not protobuf".getBytes(StandardCharsets.UTF_8));
        cluster.send(Topics.NODES, new NodeId("ghost"), Records.node("ghost", "http://127.0.0.1:1", CAPACITY,
                System.currentTimeMillis()));
        ObjectId unknown = ObjectId.generate();
        ObjectRecord tombstone = Records.tombstone(Records.live(unknown, node.nodeId(), 10, 0),
                System.currentTimeMillis());
        cluster.send(Topics.OBJECTS, unknown, tombstone);

        // Then: the poison record is in dead-letters, the tombstone carried out (its record nulled)
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            assertThat(cluster.latest(Topics.DEAD_LETTERS).values()).extracting(DeadLetter::getSourceTopic)
                    .contains("promptcache.objects");
            List<Map.Entry<ObjectId, ObjectRecord>> history = cluster.history(Topics.OBJECTS);
            assertThat(history.stream().filter(e -> e.getKey().equals(unknown)).map(Map.Entry::getValue))
                    .as("tombstone, then null").hasSize(2).last().isNull();
        });
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("promptcache_gc_anomalies_total{kind=\"unknown_tombstone\"} 1.0"));

        // Then: and the processor still works: an orphan left by a crashed store is swept after its grace
        String orphan = Records.NAMESPACE + "/" + ObjectId.generate();
        cluster.put(orphan, 100);
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.rangeGet(orphan, 10).isEmpty());
        given().get("/q/health/ready").then().statusCode(200);
    }

    @Test
    void shouldKeepRunningWhenARecordIsTooLargeForWhatItWritesOfIt() {
        // Given: object records as large as objects takes (1 MiB, its max.message.bytes; found by trying, each try a
        // record too): what the GC makes of one (its ledger entry, its summary, its tombstone) adds its own fields
        // and would not fit its own topics, and under exactly-once a write that fails fails the stream thread
        ObjectId big = ObjectId.generate();
        ObjectRecord.Builder record = Records.live(big, node.nodeId(), 10, System.currentTimeMillis()).toBuilder()
                .setKeysFromRecord(true);
        int low = 1_000_000;
        int high = Topics.MAX_RECORD_BYTES;
        List<byte[]> tries = new ArrayList<>(List.of(big.toBytes()));
        assertThat(cluster.accepted(Topics.OBJECTS, ObjectId.generate().toBytes(), padded(record, high)))
                .as("objects refuses a record over its limit").isFalse();
        while (high - low > 1) {
            int mid = (low + high) >>> 1;
            tries.add(ObjectId.generate().toBytes());
            if (cluster.accepted(Topics.OBJECTS, tries.get(tries.size() - 1), padded(record, mid))) {
                low = mid;
            } else {
                high = mid;
            }
        }
        cluster.sendRaw(Topics.OBJECTS, big.toBytes(), padded(record, low));

        // Then: the record is a dead letter, saying why, and the GC keeps working: a tombstone of an object nobody
        // registered, sent after it, is carried out, and the GC stays ready
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(cluster.history(Topics.DEAD_LETTERS))
                .anySatisfy(letter -> {
                    assertThat(letter.getKey()).isEqualTo(big.toBytes());
                    assertThat(letter.getValue().getReason()).contains("the GC could not write what it makes of it");
                }));
        ObjectId unknown = ObjectId.generate();
        cluster.send(Topics.OBJECTS, unknown, Records.tombstone(Records.live(unknown, node.nodeId(), 10, 0),
                System.currentTimeMillis()));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(cluster.history(Topics.OBJECTS)
                .stream().filter(e -> e.getKey().equals(unknown)).map(Map.Entry::getValue)).as("tombstone, then null")
                .hasSize(2).last().isNull());
        given().get("/q/health/ready").then().statusCode(200);
        tries.forEach(key -> cluster.sendRaw(Topics.OBJECTS, key, null)); // gone from the topic the other tests read
    }

    /** {@code record}'s bytes grown to {@code bytes} by its owner field (informational). */
    private static byte[] padded(ObjectRecord.Builder record, int bytes) {
        int base = record.clone().setOwnerId("").build().getSerializedSize();
        int pad = bytes - base - 4; // the field's tag and length take 4 bytes at these sizes
        return record.clone().setOwnerId("x".repeat(Math.max(0, pad))).build().toByteArray();
    }

    /**
     * Lets the broker's real cleaner compact {@code objects} and {@code prefixes} (segments rolled, nulls kept only
     * 100 ms): no record at all is left of the evicted objects, the kept ones still read LIVE.
     */
    private static void assertGoneFromBothTopicsAfterCompaction(List<ObjectId> evicted, List<PrefixKey> evictedKeys,
            List<ObjectId> kept) {
        cluster.compactEagerly(Topics.OBJECTS);
        cluster.compactEagerly(Topics.PREFIXES);
        try {
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
                cluster.rollSegments(Topics.OBJECTS);
                cluster.rollSegments(Topics.PREFIXES);
                assertThat(cluster.history(Topics.OBJECTS)).extracting(Map.Entry::getKey)
                        .as("records of evicted objects after compaction").doesNotContainAnyElementsOf(evicted);
                assertThat(cluster.history(Topics.PREFIXES)).extracting(Map.Entry::getKey)
                        .as("prefix keys of evicted objects after compaction").doesNotContainAnyElementsOf(evictedKeys);
            });
        } finally {
            cluster.restoreCompaction(Topics.OBJECTS);
            cluster.restoreCompaction(Topics.PREFIXES);
        }
        Map<ObjectId, ObjectRecord> objects = cluster.latest(Topics.OBJECTS);
        assertThat(kept).allSatisfy(id -> assertThat(objects.get(id)).as("record of kept object %s", id).isNotNull()
                .extracting(ObjectRecord::getState).isEqualTo(ObjectState.OBJECT_STATE_LIVE));
    }

    private static PrefixKey key(int i) {
        return Records.prefixKey(1000 + i);
    }
}
