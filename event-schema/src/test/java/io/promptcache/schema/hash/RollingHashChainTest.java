package io.promptcache.schema.hash;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.GoldenVectors;

import net.openhft.hashing.LongHashFunction;

import static org.assertj.core.api.Assertions.assertThat;

class RollingHashChainTest {

    @Test
    void shouldMatchAnIndependentXxh3_64Chain() {
        // Given
        int blockSize = 16;
        int[] tokens = GoldenVectors.tokens(blockSize * 5 + 7, 11);
        LongHashFunction xx3 = LongHashFunction.xx3(RollingHashChain.SEED);
        // When
        long[] seq = RollingHashChain.of(blockSize, tokens);
        // Then
        assertThat(seq).hasSize(5);
        long previous = 0;
        for (int i = 0; i < 5; i++) {
            ByteBuffer block = ByteBuffer.allocate(4 * blockSize).order(ByteOrder.LITTLE_ENDIAN);
            for (int t = 0; t < blockSize; t++) {
                block.putInt(tokens[i * blockSize + t]);
            }
            long local = xx3.hashBytes(block.array());
            long expected = i == 0
                    ? local
                    : xx3.hashBytes(ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(previous)
                            .putLong(local).array());
            assertThat(seq[i]).as("seq_%d", i).isEqualTo(expected);
            previous = expected;
        }
    }

    @Test
    void shouldDependOnEveryEarlierBlock() {
        int[] a = GoldenVectors.tokens(48, 2);
        int[] b = a.clone();
        b[0] ^= 1;
        long[] seqA = RollingHashChain.of(16, a);
        long[] seqB = RollingHashChain.of(16, b);
        for (int i = 0; i < 3; i++) {
            assertThat(seqA[i]).isNotEqualTo(seqB[i]);
        }
    }

    @Test
    void shouldContinueAChainFromItsLastBlock() {
        // Given: 5 blocks, split after block 2
        int[] tokens = GoldenVectors.tokens(80, 3);
        long[] whole = RollingHashChain.of(16, tokens);
        long[] head = RollingHashChain.of(16, java.util.Arrays.copyOf(tokens, 32));

        // When
        long[] tail = RollingHashChain.continued(head[1], 16, java.util.Arrays.copyOfRange(tokens, 32, 80));

        // Then
        assertThat(tail).containsExactly(whole[2], whole[3], whole[4]);
    }
}
