package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A node whose GC marked nothing (stopped, lagging, restarting) keeps taking writes: it deletes its own least recently
 * used KV objects unused for the age limit (a read, whole or in part, counts as a use), never a pinned one, never another
 * application's key, never one whose deletion frees nothing, and reports each in its reclaim log (the heartbeats),
 * so the GC tombstones it. Only when everything it holds is younger than the limit (or pinned) is a write refused.
 */
class SelfEvictionTest {

    static final int SIZE = 40_000;
    private static final String NS = "0123456789abcdef0123456789abcdef";
    static final Duration AGE = Duration.ofMillis(300);

    @TempDir
    Path data;

    @Test
    void shouldDeleteItsOwnLeastRecentlyUsedObjectsWhenTheGcMarkedNothing() throws Exception {
        try (ObjectStore store = open(5 * SIZE)) {
            // Given: a full node: a pinned object, another application's key, and three KV objects, all old enough;
            // the first KV object read in part since (a partial hit: a use of the node's own order, where a hot
            // prefix is read in part by every request that shares it), the second read whole
            store.createBucket("kv-b");
            String pinned = key();
            put(store, pinned, Map.of(NodeMarkers.PINNED, "true"));
            put(store, "someone-else/file.bin", Map.of());
            String first = key();
            String second = key();
            String third = key();
            put(store, first, Map.of());
            put(store, second, Map.of());
            put(store, third, Map.of());
            Thread.sleep(AGE.toMillis() + 100);
            read(store, first, SIZE / 2);
            read(store, second, SIZE);

            // When: a write needs room, the GC having marked nothing
            String fourth = key();
            put(store, fourth, Map.of());
            // Then: the least recently used KV object went: the third, unread; the first, read in part, stays
            assertThat(ReclaimTest.exists(store, third)).isFalse();
            assertThat(ReclaimTest.exists(store, first)).isTrue();

            // When: another write needs room, once the reads are older than the limit too
            Thread.sleep(AGE.toMillis() + 100);
            String fifth = key();
            put(store, fifth, Map.of());

            // Then: the least recently used KV objects went (the third, then the first), the read one, the pinned one
            // and the foreign key stay; both deletions are reported
            assertThat(ReclaimTest.exists(store, first)).isFalse();
            assertThat(ReclaimTest.exists(store, third)).isFalse();
            assertThat(ReclaimTest.exists(store, second) && ReclaimTest.exists(store, pinned)
                    && ReclaimTest.exists(store, "someone-else/file.bin"))
                    .isTrue();
            assertThat(store.tierStats().selfEvicted()).isEqualTo(2);
            assertThat(store.tierStats().roomWrites()).as("the writes that made room first").isEqualTo(2);
            assertThat(store.tierStats().roomSeconds()).isPositive();
            assertThat(store.reclaimed().recent(System.currentTimeMillis())).extracting(ReclaimLog.Entry::key)
                    .containsExactlyInAnyOrder(first, third);

            // When: a third write comes while every KV object left is younger than the limit or pinned (each read
            // just now, the fifth in part)
            read(store, second, SIZE);
            read(store, fourth, SIZE);
            read(store, fifth, SIZE / 2);
            // Then: refused, nothing deleted
            assertThatThrownBy(() -> put(store, key(), Map.of())).isInstanceOf(S3Exception.class)
                    .hasMessageContaining("Not enough free capacity");
            assertThat(ReclaimTest.exists(store, second) && ReclaimTest.exists(store, pinned)).isTrue();
        }
    }

    @Test
    void shouldDeleteGcMarkedObjectsBeforeItsOwnAndKeepTheOrderAcrossARestart() throws Exception {
        String old;
        String candidate;
        try (ObjectStore store = open(2 * SIZE)) {
            store.createBucket("kv-b");
            old = key();
            candidate = key();
            put(store, old, Map.of());
            put(store, candidate, Map.of());
            Thread.sleep(AGE.toMillis() + 100);
            store.copy(store.head("kv-b", candidate), "kv-b", candidate, new ObjectHeaders("application/octet-stream",
                    Map.of(), Map.of(Reclaimables.CANDIDATE, "1000")), WriteCondition.NONE);
            // the GC's candidate goes first, though the other is older
            put(store, key(), Map.of());
            assertThat(ReclaimTest.exists(store, candidate)).isFalse();
            assertThat(ReclaimTest.exists(store, old)).isTrue();
        }
        try (ObjectStore store = open(2 * SIZE)) {
            Thread.sleep(AGE.toMillis() + 100);
            // after a restart the oldest (by its stored time) is the first of the node's own
            put(store, key(), Map.of());
            assertThat(ReclaimTest.exists(store, old)).isFalse();
        }
    }

    private ObjectStore open(long capacity) {
        return ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, capacity).withSelfEvictAfter(AGE));
    }

    static String key() {
        return NS + "/" + ObjectId.generate();
    }

    static void put(ObjectStore store, String key, Map<String, String> metadata) throws IOException {
        byte[] body = ObjectStoreTest.randomBytes(SIZE, key.hashCode());
        try (ObjectUpload upload = store.beginPut("kv-b", key, body.length, "application/octet-stream", metadata)) {
            upload.write(body, 0, body.length);
            upload.commit(null);
        }
    }

    private static void read(ObjectStore store, String key, long length) {
        ObjectMeta meta = store.head("kv-b", key);
        store.openRange("kv-b", key, meta, 0, length).forEach(BodySegment::release);
    }
}
