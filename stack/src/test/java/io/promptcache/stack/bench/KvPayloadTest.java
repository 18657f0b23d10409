package io.promptcache.stack.bench;

import java.nio.ByteBuffer;
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
        assertThat(matches(payload, Arrays.copyOf(stored, 128), new long[]{1, 2, 9}, 2)).isTrue();
        assertThat(matches(payload, Arrays.copyOf(stored, 128), new long[]{1, 5, 9}, 2)).as("other block").isFalse();
        assertThat(matches(payload, Arrays.copyOf(stored, 100), new long[]{1, 2, 9}, 2)).as("short read").isFalse();
        byte[] rotten = Arrays.copyOf(stored, 128);
        rotten[64 + 40] ^= 1;
        assertThat(matches(payload, rotten, new long[]{1, 2, 9}, 2)).as("one bit flipped in a block's filler")
                .isFalse();
    }

    @Test
    void shouldCheckABodyFedInPiecesOfAnySize() {
        // Given: the first 3 blocks of an object of {7, 8, 9, 10}, 64 B a block
        KvPayload payload = new KvPayload(64);
        long[] ids = {7, 8, 9, 10};
        byte[] body = Arrays.copyOf(payload.object(ids), 192);

        // Then: fed in pieces of 1, 5, 13 and 100 B (ids and filler split across pieces), it matches
        for (int piece : new int[]{1, 5, 13, 100}) {
            assertThat(fed(payload.check(ids, 3), body, piece).matches()).as("pieces of %d B", piece).isTrue();
        }
        byte[] id = body.clone();
        id[64 + 3] ^= 1;
        byte[] filler = body.clone();
        filler[191] ^= (byte) 0x80;
        assertThat(fed(payload.check(ids, 3), id, 5).matches()).as("a bit of block 1's id").isFalse();
        assertThat(fed(payload.check(ids, 3), filler, 13).matches()).as("the last byte").isFalse();
        assertThat(fed(payload.check(ids, 3), Arrays.copyOf(body, 191), 7).matches()).as("one byte short").isFalse();
        KvPayload.Check longer = fed(payload.check(ids, 3), Arrays.copyOf(payload.object(ids), 193), 7);
        assertThat(longer.matches()).as("one byte more").isFalse();
        assertThat(longer.bytes()).isEqualTo(193);
        assertThat(fed(payload.check(new long[]{7, 8}, 3), body, 64).matches()).as("more blocks than the prompt's")
                .isFalse();
    }

    @Test
    void shouldBuildTheBlocksAfterAHitAsTheTailOfTheWholeObject() {
        KvPayload payload = new KvPayload(64);
        long[] ids = {1, 2, 3, 4};

        assertThat(payload.blocks(ids, 2)).isEqualTo(Arrays.copyOfRange(payload.object(ids), 128, 256));
        assertThat(payload.blocks(ids, 4)).isEmpty();
    }

    /** Whether {@code bytes}, fed at once, are exactly the first {@code blocks} blocks of {@code ids}. */
    private static boolean matches(KvPayload payload, byte[] bytes, long[] ids, int blocks) {
        return fed(payload.check(ids, blocks), bytes, Math.max(1, bytes.length)).matches();
    }

    private static KvPayload.Check fed(KvPayload.Check check, byte[] body, int piece) {
        for (int at = 0; at < body.length; at += piece) {
            check.accept(ByteBuffer.wrap(body, at, Math.min(piece, body.length - at)));
        }
        return check;
    }
}
