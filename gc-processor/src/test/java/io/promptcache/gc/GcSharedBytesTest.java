package io.promptcache.gc;

import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.gc.testing.Metrics;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Physical bytes on the real broker and a real storage node: a continuation object shares its parent's bytes on
 * the node; the GC counts them once, and deleting the parent and the continuation in either order frees each byte
 * exactly when its last holder goes, while the survivor keeps reading right.
 */
@QuarkusTest
@StorageNodeFixture.NodeConfig("promptcache.storage.capacity-bytes=" + (64L << 20))
class GcSharedBytesTest extends NodeBackedGcTest {

    private static final int KIB = 1024;
    @ParameterizedTest(name = "parent deleted first: {0}")
    @ValueSource(booleans = {true, false})
    void shouldFreeSharedBytesWithTheirLastHolderInEitherOrder(boolean parentFirst) throws Exception {
        // Given: turn 1 (256 KiB) and turn 2 sharing it whole plus 128 KiB of its own, advertised like the index does
        long nodeBase = node.usedBytes();
        double gcBase = gcHeldBytes();
        long now = System.currentTimeMillis();
        byte[] turn1 = random(256 * KIB, parentFirst ? 1 : 2);
        byte[] fresh = random(128 * KIB, parentFirst ? 3 : 4);
        ObjectRecord parent = cluster.upload(turn1, now);
        cluster.register(parent, Records.prefixKey(parentFirst ? 100 : 200));
        ObjectRecord child = cluster.uploadContinuation(parent, turn1.length, fresh, now);
        cluster.register(child, Records.prefixKey(parentFirst ? 100 : 200), Records.prefixKey(parentFirst ? 101 : 201));
        byte[] turn2 = concat(turn1, fresh);
        // Then: 384 KiB on the node, and the GC counts the same physical bytes (the shared 256 KiB once)
        assertThat(node.usedBytes() - nodeBase).isEqualTo(384L * KIB);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(gcHeldBytes() - gcBase)
                .isEqualTo(384.0 * KIB));

        // When: one of them is deleted (tombstoned by its owner; the GC deletes it at the end of the grace window)
        ObjectRecord first = parentFirst ? parent : child;
        ObjectRecord second = parentFirst ? child : parent;
        deleteThroughTheGc(first);
        // Then: the survivor reads whole; only the bytes nothing else holds were freed; a parent's record (and its
        // keys) stays while the continuation reads its bytes: lookups serve its keys from the continuation
        if (parentFirst) {
            assertThat(cluster.latest(Topics.OBJECTS).get(Records.idOf(parent))).as("the parent's record")
                    .isNotNull().extracting(ObjectRecord::getState).isEqualTo(ObjectState.OBJECT_STATE_TOMBSTONED);
            assertThat(cluster.latest(Topics.PREFIXES)).containsKey(Records.prefixKey(100));
            assertThat(cluster.get(child.getKey())).hasValueSatisfying(b -> assertThat(b).isEqualTo(turn2));
            assertThat(node.usedBytes() - nodeBase).as("the continuation still holds turn 1's bytes")
                    .isEqualTo(384L * KIB);
        } else {
            assertThat(cluster.get(parent.getKey())).hasValueSatisfying(b -> assertThat(b).isEqualTo(turn1));
            assertThat(node.usedBytes() - nodeBase).as("turn 2's own bytes freed").isEqualTo(256L * KIB);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(gcHeldBytes() - gcBase)
                .isEqualTo(parentFirst ? 384.0 * KIB : 256.0 * KIB));

        // When: the other goes too, then everything is freed, on the node and in the GC's books, and both records
        deleteThroughTheGc(second);
        assertThat(node.usedBytes()).isEqualTo(nodeBase);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> cluster.latest(Topics.OBJECTS).get(Records.idOf(first)) == null
                        && cluster.latest(Topics.OBJECTS).get(Records.idOf(second)) == null);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(gcHeldBytes()).isEqualTo(gcBase));
    }

    /** Tombstones the object as its owner would and waits until the GC deleted it on the node. */
    private static void deleteThroughTheGc(ObjectRecord record) {
        ObjectId id = Records.idOf(record);
        cluster.send(Topics.OBJECTS, id, Records.tombstone(record, System.currentTimeMillis()));
        await().atMost(Duration.ofSeconds(60)).until(() -> cluster.get(record.getKey()).isEmpty());
        // the budget keeper has seen the delete once its held bytes no longer count the object's own piece
    }

    /** The GC's held bytes of the node (0 when it knows no object there). */
    private static double gcHeldBytes() {
        return Metrics.value("promptcache_gc_bytes{kind=\"held\",name=\"" + node.nodeId() + "\",scope=\"node\"}");
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
