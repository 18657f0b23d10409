package io.promptcache.schema.key;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.management.ThreadMXBean;

import io.promptcache.schema.GoldenVectors;
import io.promptcache.schema.hash.Bytes;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.namespace.NamespaceSpec;

import net.openhft.hashing.LongTupleHashFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PrefixChainTest {

    private static final NamespaceId NS = new NamespaceSpec("m", "bf16", 4, "", 1, "t", "", HashAlgorithm.XXH3_128)
            .id();

    @Test
    void shouldMatchGoldenSha256ChainsComputedByPythonHashlib() {
        // Given
        JsonNode golden = GoldenVectors.load();
        JsonNode namespaces = golden.get("namespaces");
        assertThat(golden.get("chains")).hasSizeGreaterThan(4);
        for (JsonNode vector : golden.get("chains")) {
            NamespaceId ns = GoldenVectors.spec(namespaces.get(vector.get("namespace").asInt())).id();
            int[] tokens = GoldenVectors.tokens(vector.get("token_count").asInt(), vector.get("token_seed").asLong());
            // When
            PrefixChain chain = PrefixChain.ofTokens(ns, HashAlgorithm.SHA256, vector.get("block_size").asInt(),
                    tokens);
            // Then
            List<String> actual = new ArrayList<>();
            for (int i = 0; i <= chain.blocks(); i++) {
                actual.add(Bytes.hex(chain.hash(i)));
            }
            assertThat(actual).as("chain of %s", vector).isEqualTo(GoldenVectors.texts(vector.get("chain")));
        }
    }

    @Test
    void shouldMatchAnIndependentXxh3Implementation() {
        // Given
        int[] tokens = GoldenVectors.tokens(4 * 9 + 3, 42);
        // When
        PrefixChain chain = PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, tokens);
        // Then: recompute with OpenHFT's zero-allocation-hashing XXH3-128, canonical big-endian (high, low)
        LongTupleHashFunction xx128 = LongTupleHashFunction.xx128();
        byte[] previous = canonical(xx128.hashBytes(NS.toBytes()));
        assertThat(chain.hash(0)).isEqualTo(previous);
        for (int i = 1; i <= chain.blocks(); i++) {
            ByteBuffer input = ByteBuffer.allocate(16 + 16).order(ByteOrder.LITTLE_ENDIAN);
            input.put(previous);
            for (int t = 0; t < 4; t++) {
                input.putInt(tokens[(i - 1) * 4 + t]);
            }
            previous = canonical(xx128.hashBytes(input.array()));
            assertThat(chain.hash(i)).as("h_%d", i).isEqualTo(previous);
        }
        assertThat(chain.blocks()).isEqualTo(9);
    }

    @Test
    void shouldHashTheEmptyInputToTheReferenceXxh3Value() {
        // XXH3_128bits("") from the xxHash reference implementation, canonical form
        byte[] out = new byte[16];
        HashAlgorithm.XXH3_128.newDigest().hash(new byte[0], 0, out, 0);
        assertThat(Bytes.hex(out)).isEqualTo("99aa06d3014798d86001c324468d497f");
    }

    @Test
    void shouldIgnoreATrailingPartialBlock() {
        // Given
        int[] tokens = GoldenVectors.tokens(4 * 3 + 3, 5);
        // When
        PrefixChain partial = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, tokens);
        PrefixChain exact = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, tokens, 12);
        // Then
        assertThat(partial.blocks()).isEqualTo(3);
        assertThat(partial.key(3)).isEqualTo(exact.key(3));
    }

    @Test
    void shouldChainLittleEndianTokenBytesLikeTheTokenIds() {
        // Given: the binary request form of 10 blocks and a half, behind a 12-byte offset
        int[] tokens = new Random(7).ints(16 * 10 + 8, 0, 200_000).toArray();
        byte[] bytes = new byte[12 + 4 * tokens.length];
        ByteBuffer.wrap(bytes, 12, 4 * tokens.length).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer()
                .put(tokens);
        for (HashAlgorithm algorithm : HashAlgorithm.values()) {
            // When
            PrefixChain fromIds = PrefixChain.ofTokens(NS, algorithm, 16, tokens);
            PrefixChain fromBytes = PrefixChain.ofTokenBytes(NS, algorithm, 16, bytes, 12, tokens.length);
            // Then
            assertThat(fromBytes.blocks()).isEqualTo(10);
            for (int i = 0; i <= 10; i++) {
                assertThat(fromBytes.hash(i)).as("%s h_%d", algorithm, i).isEqualTo(fromIds.hash(i));
            }
        }
        assertThatThrownBy(() -> PrefixChain.ofTokenBytes(NS, HashAlgorithm.SHA256, 16, bytes, 12, tokens.length + 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldHashLazilyAndAlikeInAnyOrder() {
        int[] tokens = new Random(11).ints(4 * 64, 0, 50_000).toArray();
        PrefixChain inOrder = PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, tokens);
        PrefixChain topFirst = PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, tokens);
        assertThat(topFirst.hash(64)).isEqualTo(inOrder.hash(64));
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i <= 64; i++) {
            order.add(i);
        }
        Collections.shuffle(order, new Random(3));
        PrefixChain shuffled = PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, tokens);
        for (int i : order) {
            assertThat(shuffled.hash(i)).as("h_%d", i).isEqualTo(inOrder.hash(i));
        }
        // only as far as asked: blocks above the highest hash asked for are read later
        int[] changing = tokens.clone();
        PrefixChain lazy = PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, changing);
        assertThat(lazy.hash(2)).isEqualTo(inOrder.hash(2));
        changing[4 * 4] ^= 1;
        assertThat(lazy.hash(5)).isEqualTo(PrefixChain.ofTokens(NS, HashAlgorithm.XXH3_128, 4, changing).hash(5))
                .isNotEqualTo(inOrder.hash(5));
    }

    @Test
    void shouldShareKeysExactlyAsFarAsTokensAgree() {
        // Given: two prompts equal in their first 5 blocks, then different
        Random random = new Random(3);
        int[] a = random.ints(64, 0, 50_000).toArray();
        int[] b = a.clone();
        b[5 * 4 + 2] ^= 1;
        // When
        PrefixChain chainA = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, a);
        PrefixChain chainB = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, b);
        // Then
        for (int i = 1; i <= 16; i++) {
            assertThat(chainA.key(i).equals(chainB.key(i))).as("block %d", i).isEqualTo(i <= 5);
        }
    }

    @Test
    void shouldAdoptTheHashesItSharesWithAnotherChainAsFarAsTheyAreComputed() {
        // Given: a prompt of 40 blocks hashed to block 30, and one equal to it for 22 blocks and 3 tokens, then not;
        // the first from token ids, the second from their little-endian bytes (the two request forms)
        Random random = new Random(5);
        int[] first = random.ints(4 * 40, 0, 50_000).toArray();
        int[] second = first.clone();
        second[22 * 4 + 3] ^= 1;
        PrefixChain source = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, first);
        source.hash(30);
        byte[] bytes = littleEndian(second);
        PrefixChain chain = PrefixChain.ofTokenBytes(NS, HashAlgorithm.SHA256, 4, bytes, 0, second.length);

        // When
        int common = chain.commonBlocks(source);
        int taken = chain.adopt(source, common);

        // Then: 22 blocks shared and taken, every hash of the chain what hashing its own tokens gives
        assertThat(common).isEqualTo(22);
        assertThat(taken).isEqualTo(22);
        assertThat(chain.computedBlocks()).isEqualTo(22);
        PrefixChain fresh = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, second);
        for (int i = 0; i <= 40; i++) {
            assertThat(chain.hash(i)).as("h_%d", i).isEqualTo(fresh.hash(i));
        }
        // only what the source had computed is taken; never more than the chains share; never across namespaces
        PrefixChain lazySource = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, first);
        lazySource.hash(7);
        PrefixChain again = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, first);
        assertThat(again.adopt(lazySource, again.commonBlocks(lazySource))).isEqualTo(7);
        assertThat(again.hash(40)).isEqualTo(source.hash(40));
        // the same prompt (or a prefix of it) uses the source's hashes as they are; hashing on writes what each
        // chain's tokens give, so the source still answers its own
        assertThat(lazySource.hash(40)).isEqualTo(source.hash(40));
        PrefixChain prefix = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, Arrays.copyOf(first, 4 * 20));
        assertThat(prefix.adopt(lazySource, prefix.commonBlocks(lazySource))).isEqualTo(20);
        for (int i = 0; i <= 20; i++) {
            assertThat(prefix.hash(i)).as("h_%d", i).isEqualTo(source.hash(i));
        }
        assertThatThrownBy(() -> PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, second).adopt(source, 23))
                .isInstanceOf(IllegalArgumentException.class);
        NamespaceId other = new NamespaceSpec("m", "bf16", 4, "", 1, "other-tenant", "", HashAlgorithm.SHA256).id();
        assertThat(PrefixChain.ofTokens(other, HashAlgorithm.SHA256, 4, first).commonBlocks(source)).isZero();
    }

    @Test
    void shouldAllocateRoomForTheHashesItComputesOnly() {
        // Given: a 131,072-token prompt at block size 1 (SHA-256: 4 MiB of hashes), hashed to its end once (kept)
        int[] tokens = new Random(9).ints(131_072, 0, 128_000).toArray();
        PrefixChain kept = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 1, tokens.clone());
        kept.key(kept.blocks());
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();

        // When: the same prompt again, as the chain memo takes it: its first key, the kept hashes, its last key
        long before = threads.getThreadAllocatedBytes(thread);
        PrefixChain again = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 1, tokens);
        PrefixKey first = again.key(1);
        again.adopt(kept, again.commonBlocks(kept));
        PrefixKey last = again.key(again.blocks());
        long allocated = threads.getThreadAllocatedBytes(thread) - before;

        // Then: a few hashes and the keys asked for, no room for the 131,072 blocks of its own
        assertThat(first).isEqualTo(kept.key(1));
        assertThat(last).isEqualTo(kept.key(kept.blocks()));
        assertThat(allocated).as("bytes allocated").isLessThan(64 << 10);
        // hashing on from a few blocks grows the array as far as needed, every hash the one its tokens give
        PrefixChain fresh = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 1, tokens);
        fresh.key(1);
        assertThat(fresh.key(fresh.blocks())).isEqualTo(last);
        assertThat(fresh.hash(70_000)).isEqualTo(kept.hash(70_000));
    }

    private static byte[] littleEndian(int[] tokens) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * tokens.length).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asIntBuffer().put(tokens);
        return buffer.array();
    }

    @Test
    void shouldSeparateNamespaces() {
        int[] tokens = GoldenVectors.tokens(8, 1);
        NamespaceId other = new NamespaceSpec("m", "bf16", 4, "", 1, "other-tenant", "", HashAlgorithm.XXH3_128).id();
        assertThat(PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, tokens).key(2))
                .isNotEqualTo(PrefixChain.ofTokens(other, HashAlgorithm.SHA256, 4, tokens).key(2));
    }

    @Test
    void shouldKeyEngineChainsApartFromTokenChains() {
        // Given: an engine chain whose hashes are exactly the bytes of the token blocks
        int[] tokens = GoldenVectors.tokens(8, 1);
        PrefixChain fromTokens = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, tokens);
        List<byte[]> engineHashes = List.of(fromTokens.hash(1), fromTokens.hash(2));
        // When
        PrefixChain fromEngine = PrefixChain.ofEngineChain(NS, HashAlgorithm.SHA256, engineHashes);
        // Then
        assertThat(fromEngine.blocks()).isEqualTo(2);
        assertThat(fromEngine.key(2)).isNotEqualTo(fromTokens.key(2));
        assertThat(PrefixChain.ofEngineChain(NS, HashAlgorithm.SHA256, engineHashes).key(2))
                .isEqualTo(fromEngine.key(2));
        assertThatThrownBy(() -> PrefixChain.ofEngineChain(NS, HashAlgorithm.SHA256, List.of(new byte[0])))
                .hasMessageContaining("empty");
    }

    @Test
    void shouldRejectOutOfRangeBlocks() {
        PrefixChain chain = PrefixChain.ofTokens(NS, HashAlgorithm.SHA256, 4, new int[8]);
        assertThatThrownBy(() -> chain.key(0)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> chain.key(3)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    private static byte[] canonical(long[] lowHigh) {
        byte[] out = new byte[16];
        Bytes.putLongBigEndian(out, 0, lowHigh[1]);
        Bytes.putLongBigEndian(out, 8, lowHigh[0]);
        return out;
    }
}
