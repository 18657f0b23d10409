package io.promptcache.stack.simulate;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import io.promptcache.stack.trace.TraceRequest;

import static org.assertj.core.api.Assertions.assertThat;

class BlockBeladyTest {

    @Test
    void shouldEvictTheBlockNeededFurthestInTheFuture() {
        // Given: 3 blocks of room; block 9 is never needed again, block 1 is, so Belady keeps 1 where LRU does not
        List<TraceRequest> trace = trace(new long[]{1, 2}, new long[]{9}, new long[]{3}, new long[]{1, 2});
        BlockBelady belady = new BlockBelady(3, trace);
        BlockLru lru = new BlockLru(3);

        int hitsBelady = 0;
        int hitsLru = 0;
        for (TraceRequest r : trace) {
            hitsBelady += belady.request(r.hashIds());
            hitsLru += lru.request(r.hashIds());
        }

        // Then: Belady evicts 9 (never again) for 3; LRU evicts 1 and then misses the whole last request
        assertThat(hitsBelady).isEqualTo(2);
        assertThat(hitsLru).isZero();
    }

    @Test
    void shouldNeverHitLessThanLruOnChatLikeTraffic() {
        // Given: 2,000 requests over 50 conversations that grow by 1-3 blocks a turn, on one shared first block
        SplittableRandom random = new SplittableRandom(7);
        List<List<Long>> conversations = new ArrayList<>();
        List<TraceRequest> trace = new ArrayList<>();
        long next = 1;
        for (int c = 0; c < 50; c++) {
            conversations.add(new ArrayList<>(List.of(0L)));
        }
        for (int i = 0; i < 2000; i++) {
            List<Long> conversation = conversations.get(random.nextInt(conversations.size()));
            for (int b = random.nextInt(1, 4); b > 0; b--) {
                conversation.add(next++);
            }
            trace.add(new TraceRequest(i, 0, 0, conversation.stream().mapToLong(Long::longValue).toArray()));
        }

        for (long capacity : new long[]{50, 200, 800}) {
            BlockBelady belady = new BlockBelady(capacity, trace);
            BlockLru lru = new BlockLru(capacity);
            long hitsBelady = 0;
            long hitsLru = 0;
            for (TraceRequest r : trace) {
                hitsBelady += belady.request(r.hashIds());
                hitsLru += lru.request(r.hashIds());
            }
            assertThat(hitsBelady).as("capacity %d", capacity).isGreaterThanOrEqualTo(hitsLru);
        }
    }

    private static List<TraceRequest> trace(long[]... requests) {
        List<TraceRequest> trace = new ArrayList<>();
        for (long[] r : requests) {
            trace.add(new TraceRequest(trace.size(), 0, 0, r));
        }
        return trace;
    }
}
