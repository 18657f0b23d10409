package io.promptcache.index.routing;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LongStampMapTest {

    @Test
    void shouldBehaveLikeAHashMapUnderRandomPutsAndRemoves() {
        // Given: keys from a small range, so puts overwrite, removes hit, and probe runs wrap around
        Random random = new Random(7);
        LongStampMap map = new LongStampMap();
        Map<Long, Long> reference = new HashMap<>();

        // When
        for (int i = 0; i < 200_000; i++) {
            long key = random.nextInt(5_000) * 0x10000L; // keys sharing low bits collide in a naive hash
            if (random.nextInt(3) == 0) {
                Long expected = reference.remove(key);
                assertThat(map.remove(key)).isEqualTo(expected == null ? LongStampMap.ABSENT : expected);
            } else {
                long stamp = random.nextLong() & Long.MAX_VALUE;
                Long expected = reference.put(key, stamp);
                assertThat(map.put(key, stamp)).isEqualTo(expected == null ? LongStampMap.ABSENT : expected);
            }
        }

        // Then
        assertThat(map.size()).isEqualTo(reference.size());
        reference.forEach((k, v) -> assertThat(map.get(k)).isEqualTo(v));
        Map<Long, Long> visited = new HashMap<>();
        map.forEach(visited::put);
        assertThat(visited).isEqualTo(reference);
        assertThat(map.get(-1)).isEqualTo(LongStampMap.ABSENT);
    }
}
