package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A write that needs room deletes the objects the GC marked reclaimable, earliest deadline first, before refusing. */
class ReclaimTest {

    private static final int SIZE = 40_000;

    @TempDir
    Path data;

    @Test
    void shouldMakeRoomFromReclaimableObjectsEarliestDeadlineFirst() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            // Given: a full node (3 objects), two of them evicted by the GC and marked reclaimable
            store.createBucket("kv-b");
            for (String key : new String[]{"a", "b", "c"}) {
                put(store, key);
            }
            mark(store, "b", 2000);
            mark(store, "a", 1000);
            assertThat(store.reclaimableBytes()).isEqualTo(2L * SIZE);
            // When: a new object needs room
            put(store, "d");
            // Then: the earliest deadline went, and only it
            assertThat(exists(store, "a")).isFalse();
            assertThat(exists(store, "b")).isTrue();
            assertThat(store.tierStats().reclaimedEarly()).isEqualTo(1);
            assertThat(store.usedBytes()).isEqualTo(3L * SIZE);
        }
        // and the mark survives a restart
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            assertThat(store.reclaimableBytes()).isEqualTo(SIZE);
            put(store, "e");
            assertThat(exists(store, "b")).isFalse();
            // with nothing reclaimable left, a write that does not fit is refused and nothing is deleted
            assertThatThrownBy(() -> put(store, "f")).isInstanceOf(S3Exception.class)
                    .hasMessageContaining("Not enough free capacity");
            assertThat(exists(store, "c") && exists(store, "d") && exists(store, "e")).isTrue();
        }
    }

    @Test
    void shouldNotCountSharedBytesAsReclaimable() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            store.createBucket("kv-b");
            put(store, "parent");
            store.copy(store.head("kv-b", "parent"), "kv-b", "child", null, null);
            mark(store, "parent", 1000);
            // the child still holds the parent's body: deleting the parent would free nothing
            assertThat(store.reclaimableBytes()).isZero();
            mark(store, "child", 2000);
            assertThat(store.reclaimableBytes()).isEqualTo(SIZE);
        }
    }

    private static void mark(ObjectStore store, String key, long deleteAfterMs) {
        store.copy(store.head("kv-b", key), "kv-b", key, "application/octet-stream",
                Map.of(Reclaimables.MARKER, Long.toString(deleteAfterMs)));
    }

    private static boolean exists(ObjectStore store, String key) {
        try {
            store.head("kv-b", key);
            return true;
        } catch (S3Exception e) {
            return false;
        }
    }

    private static void put(ObjectStore store, String key) throws IOException {
        byte[] body = ObjectStoreTest.randomBytes(SIZE, key.hashCode());
        try (ObjectUpload upload = store.beginPut("kv-b", key, body.length, "application/octet-stream", Map.of())) {
            upload.write(body, 0, body.length);
            upload.commit(null);
        }
    }
}
