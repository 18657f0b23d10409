package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A write that needs room deletes the objects the GC marked, before refusing: evicted ones (earliest deadline first),
 * then LIVE eviction candidates (least recently used first, a read on the node counting as a use), never one whose
 * deletion would free nothing.
 */
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
    void shouldWaitForTheGcToMarkMoreBeforeRefusingAWrite() throws Exception {
        try (ObjectStore store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 2 * SIZE)
                .withReclaimWait(Duration.ofSeconds(30)))) {
            // Given: a full node with nothing marked
            store.createBucket("kv-b");
            put(store, "a");
            put(store, "b");
            // When: a write needs room, and the GC's next round nominates a candidate while it waits
            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    put(store, "c");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            Thread.sleep(300);
            assertThat(write).as("no room and nothing marked: the write waits").isNotDone();
            nominate(store, "a", 1000);
            // Then: the write goes through, the candidate deleted for it and reported
            write.get(30, TimeUnit.SECONDS);
            assertThat(exists(store, "a")).isFalse();
            assertThat(exists(store, "b") && exists(store, "c")).isTrue();
            assertThat(store.tierStats().reclaimWaits()).isEqualTo(1);
            assertThat(store.reclaimed().recent(System.currentTimeMillis())).extracting(ReclaimLog.Entry::key)
                    .containsExactly("a");
        }
        // and when nothing is marked within the wait, the write is refused after it, nothing deleted
        try (ObjectStore store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 2 * SIZE)
                .withReclaimWait(Duration.ofMillis(200)))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> put(store, "d")).isInstanceOf(S3Exception.class)
                    .hasMessageContaining("Not enough free capacity");
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(Duration.ofMillis(200).toNanos());
            assertThat(exists(store, "b") && exists(store, "c")).isTrue();
        }
    }

    @Test
    void shouldNotCountSharedBytesAsReclaimable() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            store.createBucket("kv-b");
            put(store, "parent");
            store.copy(store.head("kv-b", "parent"), "kv-b", "child", null, WriteCondition.NONE);
            mark(store, "parent", 1000);
            // the child still holds the parent's body: deleting the parent would free nothing
            assertThat(store.reclaimableBytes()).isZero();
            mark(store, "child", 2000);
            assertThat(store.reclaimableBytes()).isEqualTo(SIZE);
        }
    }

    @Test
    void shouldDeleteEvictedObjectsBeforeCandidatesAndCandidatesLeastRecentlyUsedFirst() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 4 * SIZE)) {
            // Given: a full node; "old" and "new" are LIVE eviction candidates, "gone" an evicted object
            store.createBucket("kv-b");
            for (String key : new String[]{"old", "new", "gone", "kept"}) {
                put(store, key);
            }
            nominate(store, "new", 2000);
            nominate(store, "old", 1000);
            mark(store, "gone", 5_000_000_000_000L);
            assertThat(store.reclaimableBytes()).isEqualTo(3L * SIZE);
            // When: two writes need room
            put(store, "w1");
            put(store, "w2");
            // Then: the evicted object went first, then the least recently used candidate
            assertThat(exists(store, "gone") || exists(store, "old")).isFalse();
            assertThat(exists(store, "new") && exists(store, "kept")).isTrue();
            // and only the candidate is reported for the GC to tombstone
            assertThat(store.reclaimed().recent(System.currentTimeMillis())).extracting(ReclaimLog.Entry::key)
                    .containsExactly("old");
            // and a GET of it says why it is gone (an engine that hits it still costs one miss)
            assertThatThrownBy(() -> store.head("kv-b", "old")).isInstanceOf(S3Exception.class)
                    .hasMessageEndingWith(ObjectStore.RECLAIMED);
            assertThatThrownBy(() -> store.head("kv-b", "gone")).isInstanceOf(S3Exception.class)
                    .hasMessage("The specified key does not exist: gone");
            // and the GC's DELETE of it afterwards is a no-op, counted apart from DELETEs that remove an object
            store.delete("kv-b", "old");
            store.delete("kv-b", "kept");
            assertThat(store.tierStats().deletesOfAbsent()).isEqualTo(1);
            assertThat(store.tierStats().deletes()).isEqualTo(1);
        }
    }

    @Test
    void shouldMoveACandidateThatIsReadBehindTheOthers() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            store.createBucket("kv-b");
            for (String key : new String[]{"a", "b", "c"}) {
                put(store, key);
            }
            nominate(store, "a", 1000);
            nominate(store, "b", 2000);
            // "a" is hit again on this node: a range GET of all of it
            ObjectMeta a = store.head("kv-b", "a");
            store.openRange("kv-b", "a", a, 0, a.size()).forEach(BodySegment::release);
            put(store, "d");
            assertThat(exists(store, "a")).isTrue();
            assertThat(exists(store, "b")).isFalse();
        }
    }

    @Test
    void shouldLeaveACandidateWhoseFirstBytesAloneAreReadInItsPlace() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            store.createBucket("kv-b");
            for (String key : new String[]{"a", "b", "c"}) {
                put(store, key);
            }
            nominate(store, "a", 1000);
            nominate(store, "b", 2000);
            // a partial hit of "a" (its first bytes, which the continuation stored next holds): not a use of "a"
            ObjectMeta a = store.head("kv-b", "a");
            store.openRange("kv-b", "a", a, 0, 10).forEach(BodySegment::release);
            put(store, "d");
            assertThat(exists(store, "a")).isFalse();
            assertThat(exists(store, "b")).isTrue();
        }
    }

    @Test
    void shouldSkipCandidatesWhoseBytesOthersStillHold() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 3 * SIZE)) {
            store.createBucket("kv-b");
            put(store, "parent");
            store.copy(store.head("kv-b", "parent"), "kv-b", "child", null, WriteCondition.NONE);
            put(store, "other");
            put(store, "third");
            nominate(store, "parent", 1000);
            nominate(store, "other", 2000);
            // deleting the parent would free nothing (the child holds its body): the next candidate goes
            put(store, "new");
            assertThat(exists(store, "parent")).isTrue();
            assertThat(exists(store, "other")).isFalse();
            // with no candidate that frees bytes left, the write is refused
            assertThatThrownBy(() -> put(store, "refused")).isInstanceOf(S3Exception.class)
                    .hasMessageContaining("Not enough free capacity");
            assertThat(exists(store, "parent") && exists(store, "child")).isTrue();
        }
    }

    private static void mark(ObjectStore store, String key, long deleteAfterMs) {
        store.copy(store.head("kv-b", key), "kv-b", key, new ObjectHeaders("application/octet-stream", Map.of(),
                Map.of(Reclaimables.MARKER, Long.toString(deleteAfterMs))), WriteCondition.NONE);
    }

    private static void nominate(ObjectStore store, String key, long lastUseMs) {
        store.copy(store.head("kv-b", key), "kv-b", key, new ObjectHeaders("application/octet-stream", Map.of(),
                Map.of(Reclaimables.CANDIDATE, Long.toString(lastUseMs))), WriteCondition.NONE);
    }

    /** Whether {@code kv-b/key} is on the node. */
    static boolean exists(ObjectStore store, String key) {
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
