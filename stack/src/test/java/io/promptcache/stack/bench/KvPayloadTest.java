package io.promptcache.stack.bench;

import java.util.Arrays;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KvPayloadTest {

    @Test
    void shouldRecognizeThePrefixBlocksOfAnotherPromptsObject() {
        // Given: an object stored for blocks {1, 2, 3}; a prompt {1, 2, 9} hits its first 2 blocks
        KvPayload payload = new KvPayload(64);
        byte[] stored = payload.object(new long[]{1, 2, 3});

        // Then
        assertThat(stored).hasSize(192);
        assertThat(payload.matches(Arrays.copyOf(stored, 128), new long[]{1, 2, 9}, 2)).isTrue();
        assertThat(payload.matches(Arrays.copyOf(stored, 128), new long[]{1, 5, 9}, 2)).as("other block").isFalse();
        assertThat(payload.matches(Arrays.copyOf(stored, 100), new long[]{1, 2, 9}, 2)).as("short read").isFalse();
        byte[] rotten = Arrays.copyOf(stored, 128);
        rotten[64 + 40] ^= 1;
        assertThat(payload.matches(rotten, new long[]{1, 2, 9}, 2)).as("one bit flipped in a block's filler")
                .isFalse();
    }
}
