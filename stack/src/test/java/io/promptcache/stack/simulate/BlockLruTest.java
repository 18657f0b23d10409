package io.promptcache.stack.simulate;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BlockLruTest {

    @Test
    void shouldHitTheLongestCachedPrefixAndEvictTheLeastRecentlyUsedBlock() {
        BlockLru lru = new BlockLru(4);

        assertThat(lru.request(new long[]{1, 2, 3})).isZero();
        assertThat(lru.request(new long[]{1, 2, 4})).as("prefix 1, 2").isEqualTo(2);
        // 3 is now the least recently used: a fifth block evicts it
        assertThat(lru.request(new long[]{5})).isZero();
        assertThat(lru.request(new long[]{1, 2, 3})).as("3 was evicted").isEqualTo(2);
        assertThat(lru.request(new long[]{4, 1})).as("4 was evicted by 3: no prefix").isZero();
    }
}
