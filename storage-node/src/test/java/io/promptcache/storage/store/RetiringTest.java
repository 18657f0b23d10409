package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.schema.node.NodeMarkers;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Retiring ahead of need (docs/architecture.md, "Retiring"): a node low on room whose GC marked nothing picks its own
 * least recently used objects by the self-eviction rules and lists them; it deletes one only once a heartbeat listing
 * it was delivered a second before - first among its own when a write needs room, or once it retired for the
 * self-eviction age - and reports each deletion like its other ones.
 */
class RetiringTest {

    private static final int SIZE = SelfEvictionTest.SIZE;
    private static final Duration AGE = SelfEvictionTest.AGE;

    @TempDir
    Path data;

    @Test
    void shouldRetireItsLeastRecentlyUsedObjectsWhenLowOnRoomAndDeleteThemOnlyOnceAnnounced() throws Exception {
        try (ObjectStore store = open(4 * SIZE)) {
            // Given: three KV objects and a pinned one fill the node; all older than the age limit, the first read
            // since
            String first = put(store, Map.of());
            String second = put(store, Map.of());
            String third = put(store, Map.of());
            String pinned = put(store, Map.of(NodeMarkers.PINNED, "true"));
            Thread.sleep(AGE.toMillis() + 100);
            store.openRange("kv-b", first, store.head("kv-b", first), 0, SIZE / 2).forEach(BodySegment::release);

            // When: the heartbeat asks for room of one object and a half (nothing marked by the GC)
            store.retireAhead(SIZE * 3 / 2, 0);

            // Then: the two least recently used KV objects retire (the read one and the pinned one stay out)
            assertThat(store.retiring()).containsExactly("kv-b/" + second, "kv-b/" + third);
            assertThat(store.retiringCount()).isEqualTo(2);
            // room enough now with them: asking again retires nothing more
            store.retireAhead(SIZE * 3 / 2, 0);
            assertThat(store.retiring()).hasSize(2);

            // When: a write needs room before any heartbeat listed them: the node's own rule (the least recently
            // used at once, unannounced) still makes room
            put(store, Map.of());
            assertThat(ReclaimTest.exists(store, second)).isFalse();
            assertThat(store.tierStats().selfEvicted()).isEqualTo(1);
            assertThat(store.retiring()).containsExactly("kv-b/" + third);

            // When: a heartbeat listing the third was delivered more than a second ago, and a write needs room
            store.retiringAnnounced(store.retiring(), System.currentTimeMillis() - Retiring.NOTICE_MS - 1);
            String fresh = put(store, Map.of());
            // Then: the retired one went, before the older but served objects (the first)
            assertThat(ReclaimTest.exists(store, third)).isFalse();
            assertThat(ReclaimTest.exists(store, first) && ReclaimTest.exists(store, pinned)
                    && ReclaimTest.exists(store, fresh)).isTrue();
            assertThat(store.tierStats().retiredDeleted()).isEqualTo(1);
            assertThat(store.retiring()).isEmpty();
            assertThat(store.reclaimed().recent(System.currentTimeMillis())).extracting(ReclaimLog.Entry::key)
                    .containsExactlyInAnyOrder(second, third);
        }
    }

    @Test
    void shouldDeleteRetiredObjectsOnceRetiredForTheAgeLimitButNotBeforeTheyWereAnnounced() throws Exception {
        try (ObjectStore store = open(4 * SIZE)) {
            String old = put(store, Map.of());
            put(store, Map.of());
            put(store, Map.of());
            Thread.sleep(AGE.toMillis() + 100);
            store.retireAhead(2 * SIZE, 0);
            assertThat(store.retiring()).containsExactly("kv-b/" + old);

            // When: it retired for longer than the age limit, but no heartbeat listing it was delivered
            Thread.sleep(AGE.toMillis() + 100);
            store.retireAhead(2 * SIZE, 0);
            // Then: it stays (the index may not know yet)
            assertThat(ReclaimTest.exists(store, old)).isTrue();

            // When: a heartbeat listing it was delivered over a second ago
            List<String> listed = store.retiring();
            store.retiringAnnounced(listed, System.currentTimeMillis() - Retiring.NOTICE_MS - 1);
            store.retireAhead(2 * SIZE, 0);
            // Then: deleted and reported, though no write needed room
            assertThat(ReclaimTest.exists(store, old)).isFalse();
            assertThat(store.tierStats().retiredDeleted()).isEqualTo(1);
            assertThat(store.reclaimed().recent(System.currentTimeMillis())).extracting(ReclaimLog.Entry::key)
                    .containsExactly(old);
        }
    }

    @Test
    void shouldForgetARetiringObjectThatWasReplacedOrDeleted() throws Exception {
        try (ObjectStore store = open(3 * SIZE)) {
            String deleted = put(store, Map.of());
            String replaced = put(store, Map.of());
            Thread.sleep(AGE.toMillis() + 100);
            store.retireAhead(3 * SIZE, 0);
            assertThat(store.retiring()).containsExactly("kv-b/" + deleted, "kv-b/" + replaced);

            store.delete("kv-b", deleted);
            put(store, replaced, Map.of());

            assertThat(store.retiring()).isEmpty();
        }
    }

    @Test
    void shouldRetireNothingWhenTheGcsMarksOrTheFreeRoomCoverTheTarget() throws Exception {
        try (ObjectStore store = open(4 * SIZE)) {
            put(store, Map.of());
            put(store, Map.of());
            put(store, Map.of());
            Thread.sleep(AGE.toMillis() + 100);
            store.retireAhead(SIZE, 0); // one object's room is free
            store.retireAhead(3 * SIZE, 2 * SIZE); // the GC's marks free two more
            assertThat(store.retiring()).isEmpty();
        }
    }

    /** A node of {@code capacity} bytes, objects old after {@link #AGE}, and its bucket. */
    private ObjectStore open(long capacity) {
        ObjectStore store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, capacity)
                .withSelfEvictAfter(AGE));
        store.createBucket("kv-b");
        return store;
    }

    private static String put(ObjectStore store, Map<String, String> metadata) throws IOException {
        return put(store, SelfEvictionTest.key(), metadata);
    }

    private static String put(ObjectStore store, String key, Map<String, String> metadata) throws IOException {
        SelfEvictionTest.put(store, key, metadata);
        return key;
    }
}
