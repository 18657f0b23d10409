package io.promptcache.gc.policy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.google.protobuf.ByteString;

import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.SharedBytes;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EvictionPolicyTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final Policy POLICY = new Policy(0.9, 0.8, 0, 0, Map.of(), new NodeLiveness(3, 300_000));
    private static final NodeStatus NODE = NodeStatus.newBuilder().setSchemaVersion(1).setNodeId("n1")
            .setEndpoint("http://127.0.0.1:1").setCapacityBytes(1000).setState(NodeState.NODE_STATE_UP)
            .setHeartbeatAtMs(NOW).setHeartbeatIntervalMs(1000).build();

    /** Class = uses so far; a used object ranks 10 s later than its last use. */
    private static final EvictionPolicy USED_LATER = new EvictionPolicy() {

        @Override
        public int classOf(GcObject object, boolean readOn) {
            return object.uses();
        }

        @Override
        public long bonusMs(int victimClass) {
            return victimClass > 0 ? 10_000 : 0;
        }
    };

    @Test
    void shouldNameThePolicies() {
        assertThat(EvictionPolicy.named("LRU")).isSameAs(EvictionPolicy.LRU);
        assertThat(EvictionPolicy.named("reuse")).isInstanceOf(ReusePolicy.class);
        assertThatThrownBy(() -> EvictionPolicy.named("fifo")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lru or reuse");
    }

    @Test
    void shouldRankVictimsByLastUsePlusTheirClassBonus() {
        // Given: 10 objects of 100 bytes on a 1000-byte node, object i last used i seconds ago; the two oldest were
        // used once (a bonus of 10 s), so they rank after objects 3 to 7 s old
        BudgetBook book = new BudgetBook(USED_LATER);
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            ObjectId id = ObjectId.generate();
            ids.add(id);
            GcObject object = new GcObject(record(100, NOW - 20_000 - i * 1000L, null), 0, false);
            book.put(id, i >= 8 ? object.usedAt(NOW - 20_000 - i * 1000L) : object);
        }

        // When: the node is over its high watermark by one object
        book.put(ObjectId.generate(), new GcObject(record(100, NOW, null), 0, false));
        List<Eviction> plan = book.plan(POLICY, Map.of("n1", NODE), NOW, 0);

        // Then: down to the low watermark (3 victims): the oldest unused ones, 7, 6 and 5 s older than the first
        assertThat(plan).extracting(Eviction::id).containsExactly(ids.get(7), ids.get(6), ids.get(5));
    }

    @Test
    void shouldBeLruWithLruPolicy() {
        BudgetBook book = new BudgetBook();
        List<ObjectId> ids = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            ObjectId id = ObjectId.generate();
            ids.add(id);
            GcObject object = new GcObject(record(100, NOW - i * 1000L, null), 0, false);
            book.put(id, i % 2 == 0 ? object.usedAt(NOW - i * 1000L) : object);
        }
        assertThat(book.plan(POLICY, Map.of("n1", NODE), NOW, 0)).extracting(Eviction::id)
                .containsExactly(ids.get(10), ids.get(9), ids.get(8));
    }

    @Test
    void shouldLearnThatAClassComesBackAndAnotherDoesNot() {
        // Given: objects of depth 1 are always used again 10 s after their store; objects of depth 2 never are
        ReusePolicy reuse = new ReusePolicy();
        BudgetBook book = new BudgetBook(reuse);
        long t = NOW;
        for (int round = 0; round < 3 * ReusePolicy.REFRESH_EVERY; round++) {
            t += 1000;
            ObjectId kept = ObjectId.generate();
            GcObject back = new GcObject(record(10, t, null), 0, false, false, 0, 1);
            book.put(kept, back);
            book.put(ObjectId.generate(), new GcObject(record(10, t, null), 0, false, false, 0, 2));
            book.advanceTo(t + 10_000);
            book.put(kept, back.usedAt(t + 10_000));
            book.put(kept, null);
            book.plan(POLICY, Map.of(), t, 0);
        }

        // Then: the first reuse takes 10 s; a depth-1 object (never used yet) ranks later than its last use, a
        // depth-2 one earlier
        assertThat(reuse.medianGapMs()).isEqualTo(10_000);
        int back = reuse.classOf(new GcObject(record(10, t, null), 0, false, false, 0, 1));
        int gone = reuse.classOf(new GcObject(record(10, t, null), 0, false, false, 0, 2));
        assertThat(reuse.bonusMs(back)).isPositive();
        assertThat(reuse.bonusMs(gone)).isNegative();
    }

    @Test
    void shouldCountAnEvictedObjectStoredAgainAsReused() {
        // Given: objects of depth 3 are evicted at once and stored again (the same first key) 5 s later; objects of
        // depth 4 are evicted and never come back
        ReusePolicy reuse = new ReusePolicy();
        BudgetBook book = new BudgetBook(reuse);
        long t = NOW;
        for (int round = 0; round < 3 * ReusePolicy.REFRESH_EVERY; round++) {
            t += 1000;
            ObjectId evicted = ObjectId.generate();
            book.put(evicted, new GcObject(record(10, t, round), 0, false, false, 0, 3));
            ObjectId lost = ObjectId.generate();
            book.put(lost, new GcObject(record(10, t, -1 - round), 0, false, false, 0, 4));
            book.put(evicted, null);
            book.put(lost, null);
            book.put(ObjectId.generate(), new GcObject(record(10, t + 5000, round), 0, false, false, 0, 3));
            book.plan(POLICY, Map.of(), t, 0);
        }

        assertThat(reuse.bonusMs(reuse.classOf(new GcObject(record(10, t, 0), 0, false, false, 0, 3))))
                .isGreaterThan(reuse.bonusMs(reuse.classOf(new GcObject(record(10, t, 0), 0, false, false, 0, 4))));
    }

    @Test
    void shouldTrimTheUnreadTailOfAnObjectReadOnAndNeverTakeOneReadWhole() {
        // Given: P (400 bytes in 4 blocks, the least recently used), X (300 bytes) and C, a continuation of P that
        // reads its first 300 bytes and writes 300 of its own: 1,000 bytes held on a 1,000-byte node (high 900, low 800)
        for (EvictionPolicy policy : List.of(EvictionPolicy.LRU, new ReusePolicy())) {
            BudgetBook book = new BudgetBook(policy);
            List<ObjectId> px = parentReadOn(book, 300);

            List<Eviction> plan = book.plan(POLICY, Map.of("n1", NODE), NOW, 0);

            // Then: both take P, then X; LRU evicts P (its first 300 bytes live on in C), reuse trims it to those
            // 300 bytes, its first 3 blocks, and it stays LIVE with its own last use
            assertThat(plan).as("%s", policy).extracting(Eviction::id).containsExactly(px.get(0), px.get(1));
            GcObject p = book.get(px.get(0));
            if (policy == EvictionPolicy.LRU) {
                assertThat(plan).extracting(Eviction::trimmed).containsExactly(false, false);
                assertThat(p.live()).isFalse();
            } else {
                assertThat(plan).extracting(Eviction::keepBytes).containsExactly(300L, 0L);
                assertThat(p.live()).isTrue();
                assertThat(p.record().getBlocks()).isEqualTo(3);
                assertThat(p.lastUsedMs()).isEqualTo(NOW - 20_000);
            }
            assertThat(book.usage().total().live()).isEqualTo(600);
        }

        // And: a parent its continuation reads whole frees nothing, so it is neither trimmed nor evicted
        BudgetBook book = new BudgetBook(new ReusePolicy());
        ObjectId x = parentReadOn(book, 400).get(1);
        assertThat(book.plan(POLICY, Map.of("n1", NODE), NOW, 0)).extracting(Eviction::id).containsExactly(x);
    }

    @Test
    void shouldCountAHitAsAUseOfEveryObjectWhoseBytesItReadsAndAContinuationOneTurnDeeper() {
        // Given: P (400 bytes, depth 2) and C, a continuation reading P's first 300 bytes and writing 300
        BudgetBook book = new BudgetBook();
        ObjectId p = ObjectId.generate();
        ObjectRecord parent = record(400, NOW - 10_000, null);
        book.put(p, new GcObject(parent, 0, false, false, 0, 2));
        ObjectId c = ObjectId.generate();
        book.put(c, new GcObject(continuation(p, parent, 300, 600, NOW - 5000), 0, false));
        assertThat(book.get(c).depth()).isEqualTo(3);

        // When: a hit reads all of C
        assertThat(book.hit(c, NOW, 600)).containsExactly(c, p);

        // Then: C is used now; P, of which it read a prefix, counts a use and keeps its last use
        assertThat(book.get(c).lastUsedMs()).isEqualTo(NOW);
        assertThat(book.get(c).uses()).isEqualTo(1);
        assertThat(book.get(p).uses()).isEqualTo(1);
        assertThat(book.get(p).lastUsedMs()).isEqualTo(NOW - 10_000);

        // And: a hit within P's bytes only is no use of C
        assertThat(book.hit(c, NOW + 1000, 200)).containsExactly(p);
        assertThat(book.get(c).uses()).isEqualTo(1);
        assertThat(book.get(p).uses()).isEqualTo(2);
    }

    @Test
    void shouldReviveTheGhostOfATrimmedTailWhenAStoreWritesItAgain() {
        // Given: P (4 blocks, keys 10..13, depth 2) trimmed to the 3 blocks its continuation reads
        ReusePolicy reuse = new ReusePolicy();
        BudgetBook book = new BudgetBook(reuse);
        ObjectId p = ObjectId.generate();
        ObjectRecord parent = keyed(400, NOW - 10_000, 10, 11, 12, 13);
        book.put(p, new GcObject(parent, 0, false, false, 0, 2));
        book.put(ObjectId.generate(), new GcObject(continuation(p, parent, 300, 600, NOW - 1000), 0, false));
        assertThat(book.trim(p)).isEqualTo(300);

        // When: a store writes the tail's block again (key 13) and one more (key 14)
        ObjectId again = ObjectId.generate();
        book.put(again, new GcObject(keyed(200, NOW, 13, 14).toBuilder().setBlocks(2).build(), 0, false));

        // Then: it continues P's turns (depth 3), and only its block beyond the tail is new content
        assertThat(book.get(again).depth()).isEqualTo(3);
        assertThat(book.get(again).fresh()).isEqualTo(1);
    }

    /**
     * Puts P (400 bytes, stored 20 s ago), X (300 bytes, 10 s ago) and a continuation of P reading its first
     * {@code shared} bytes and writing 300 of its own (1 s ago); returns P and X.
     */
    private static List<ObjectId> parentReadOn(BudgetBook book, long shared) {
        ObjectId p = ObjectId.generate();
        ObjectRecord parent = record(400, NOW - 20_000, null);
        book.put(p, new GcObject(parent, 0, false));
        ObjectId x = ObjectId.generate();
        book.put(x, new GcObject(record(300, NOW - 10_000, null), 0, false));
        book.put(ObjectId.generate(), new GcObject(continuation(p, parent, shared, shared + 300, NOW - 1000), 0,
                false));
        return List.of(p, x);
    }

    /** A continuation of {@code parent} reading its first {@code shared} bytes, {@code total} bytes in all. */
    private static ObjectRecord continuation(ObjectId parent, ObjectRecord record, long shared, long total,
            long createdAt) {
        return record(total, createdAt, null).toBuilder().setParentObjectId(parent.toString()).setSharedBytes(shared)
                .addAllShared(SharedBytes.continuing(parent.toString(), record, shared)).build();
    }

    /** A LIVE record on n1 listing {@code keys} as its written keys (the keys of its last blocks). */
    private static ObjectRecord keyed(long bytes, long createdAt, int... keys) {
        ByteBuffer hashes = ByteBuffer.allocate(8 * keys.length);
        for (int key : keys) {
            hashes.putLong(key);
        }
        return record(bytes, createdAt, (Integer) null).toBuilder()
                .setWrittenPrefixHashes(ByteString.copyFrom(hashes.flip())).setWrittenPrefixHashBytes(8).build();
    }

    /** A LIVE record on n1 of 4 blocks; with {@code firstKey}, it lists that one written key. */
    private static ObjectRecord record(long bytes, long createdAt, Integer firstKey) {
        ObjectRecord.Builder record = ObjectRecord.newBuilder().setSchemaVersion(1)
                .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId("00112233445566778899aabbccddeeff")
                .addNodes("n1").setBucket("b").setKey("k").setTotalBytes(bytes).setBlocks(4).setCreatedAtMs(createdAt)
                .setTenantId("t").setOwnerId("t");
        if (firstKey != null) {
            record.setWrittenPrefixHashes(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(firstKey).flip()))
                    .setWrittenPrefixHashBytes(8);
        }
        return record.build();
    }
}
