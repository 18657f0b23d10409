package io.promptcache.index.lookup;

import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;

import static org.assertj.core.api.Assertions.assertThat;

/** The chain memo: what a chain takes from recent ones, and what the memo keeps within its budget. */
class ChainMemoTest {

    private static final NamespaceId NS = new NamespaceSpec("m", "bf16", 1, "", 1, "t", "", HashAlgorithm.SHA256)
            .id();

    @Test
    void shouldGiveAPromptSentAgainTheHashesItSharesWithTheLastOne() {
        // Given: a 20,000-token prompt at block size 1, looked up (hashed to its end), then its next turn
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ChainMemo memo = new ChainMemo(64L << 20, registry);
        int[] turn1 = new Random(1).ints(20_000, 0, 100_000).toArray();
        int[] turn2 = Arrays.copyOf(turn1, 23_000);
        System.arraycopy(new Random(2).ints(3_000, 0, 100_000).toArray(), 0, turn2, 20_000, 3_000);
        PrefixChain first = chain(turn1);
        assertThat(memo.reuse(first)).as("nothing to take yet").isZero();
        first.hash(first.blocks());

        // When
        PrefixChain second = chain(turn2);
        int taken = memo.reuse(second);

        // Then: the 20,000 shared blocks taken, and every hash what hashing the tokens gives
        assertThat(taken).isEqualTo(20_000);
        assertThat(second.computedBlocks()).isEqualTo(20_000);
        PrefixChain fresh = chain(turn2);
        for (int i = 0; i <= 23_000; i += 997) {
            assertThat(second.hash(i)).as("h_%d", i).isEqualTo(fresh.hash(i));
        }
        assertThat(second.hash(23_000)).isEqualTo(fresh.hash(23_000));
        assertThat(registry.get("promptcache.lookup.chain.memo.blocks").counter().count()).isEqualTo(20_000);
        assertThat(registry.get("promptcache.lookup.chain.memo").tag("outcome", "reused").counter().count())
                .isEqualTo(1);
        // the first turn is a prefix of the second: superseded, only the second is kept
        assertThat(memo.bytes()).isEqualTo(second.retainedBytes());
    }

    @Test
    void shouldTakeNothingFromAnotherPromptAndKeepWithinItsBudget() {
        // Given: a budget of 4 chains of this size
        int[] tokens = new Random(3).ints(2_000, 0, 100_000).toArray();
        long size = chain(tokens).retainedBytes();
        ChainMemo memo = new ChainMemo(4 * size, new SimpleMeterRegistry());

        // When: 10 prompts that differ from their first token
        for (int p = 0; p < 10; p++) {
            int[] other = tokens.clone();
            other[0] = -1 - p;
            PrefixChain chain = chain(other);
            assertThat(memo.reuse(chain)).isZero();
            chain.hash(chain.blocks());
        }

        // Then: at most the budget held; a prompt equal to one of the last kept takes its hashes, one forgotten none
        assertThat(memo.bytes()).isLessThanOrEqualTo(4 * size);
        int[] last = tokens.clone();
        last[0] = -10;
        assertThat(memo.reuse(chain(last))).isEqualTo(2_000);
        int[] forgotten = tokens.clone();
        forgotten[0] = -1;
        assertThat(memo.reuse(chain(forgotten))).isZero();
        // a prompt sharing the first block but diverging at token 700 takes 700
        int[] diverging = last.clone();
        diverging[700] ^= 1;
        assertThat(memo.reuse(chain(diverging))).isEqualTo(700);
    }

    @Test
    void shouldDoNothingWhenOff() {
        ChainMemo memo = new ChainMemo(0, new SimpleMeterRegistry());
        int[] tokens = new Random(4).ints(100, 0, 100_000).toArray();
        PrefixChain chain = chain(tokens);
        memo.reuse(chain);
        chain.hash(100);
        assertThat(memo.reuse(chain(tokens))).isZero();
        assertThat(memo.bytes()).isZero();
    }

    private static PrefixChain chain(int[] tokens) {
        return PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 1, tokens);
    }
}
