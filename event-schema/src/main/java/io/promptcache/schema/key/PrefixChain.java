package io.promptcache.schema.key;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import io.promptcache.schema.hash.Bytes;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.namespace.NamespaceId;

/**
 * The prefix-hash chain of one token sequence in one namespace:
 * {@code h0 = H(namespaceId)}, {@code h_i = H(h_{i-1} || tokens of block i as little-endian int32)}.
 * Only complete blocks count. {@link #hash(int) hash(i)} is {@code h_i}, the key of the prefix of the first
 * {@code i} blocks.
 *
 * <p>Alternatively built from an engine-supplied block-hash chain (see {@link #ofEngineChain}).
 *
 * <p>A token chain is hashed lazily, only as far as a hash is asked for: a lookup's binary search never hashes the
 * blocks above its highest probe. It reads its tokens then, so they must not change while the chain is in use.
 * Thread-safe.
 */
public final class PrefixChain {

    /** Domain separator of engine-supplied chains, so they never collide with token chains. */
    static final byte[] ENGINE_DOMAIN = "promptcache.engine-chain.v1".getBytes(StandardCharsets.US_ASCII);

    private final NamespaceId namespace;
    private final HashAlgorithm algorithm;
    /**
     * {@code h_0 .. h_computed}: only {@code h_0} until a block is hashed or adopted, then grown as far as hashes are
     * asked for (a lookup that reuses a recent chain allocates no room for its blocks: at block size 1 a 128k-token
     * chain is 4 MiB). May be another chain's array ({@link #adopt}), of which this chain is a prefix: every hash
     * written there at an index is the one both chains' tokens give, and a chain that outgrows it copies it.
     */
    private byte[] hashes;
    private final int blocks;
    /** The tokens of a token chain and their block size; null and 0 for an engine chain. */
    private final TokenRun tokens;
    private final int blockSize;
    /** Hashes the next block of a lazy chain; null once every hash is known. */
    private TokenHasher hasher;
    /** {@code h_0 .. h_computed} are in {@link #hashes}. */
    private int computed;

    private PrefixChain(NamespaceId namespace, HashAlgorithm algorithm, byte[] hashes, int blocks, TokenRun tokens,
            int blockSize, TokenHasher hasher, int computed) {
        this.namespace = namespace;
        this.algorithm = algorithm;
        this.hashes = hashes;
        this.blocks = blocks;
        this.tokens = tokens;
        this.blockSize = blockSize;
        this.hasher = hasher;
        this.computed = computed;
    }

    /** The chain of {@code tokens}: {@code tokens.length / blockSize} complete blocks; a trailing partial block is ignored. */
    public static PrefixChain ofTokens(NamespaceId namespace, HashAlgorithm algorithm, int blockSize, int[] tokens) {
        return ofTokens(namespace, algorithm, blockSize, tokens, tokens.length);
    }

    /** The chain of {@code tokens[0, tokenCount)}. */
    public static PrefixChain ofTokens(NamespaceId namespace, HashAlgorithm algorithm, int blockSize, int[] tokens,
            int tokenCount) {
        checkTokens(blockSize, tokenCount, tokens.length);
        return ofRun(namespace, algorithm, blockSize, TokenRun.ofIds(tokens, tokenCount));
    }

    /**
     * The chain of {@code tokenCount} tokens given as little-endian int32 in {@code tokens[offset, offset +
     * 4 * tokenCount)} (the binary request form as it arrives): the same chain as {@link #ofTokens} of those ids,
     * without decoding them first.
     */
    public static PrefixChain ofTokenBytes(NamespaceId namespace, HashAlgorithm algorithm, int blockSize,
            byte[] tokens, int offset, int tokenCount) {
        checkTokens(blockSize, tokenCount, offset < 0 ? -1 : (tokens.length - offset) / 4);
        return ofRun(namespace, algorithm, blockSize, TokenRun.ofBytes(tokens, offset, tokenCount));
    }

    private static void checkTokens(int blockSize, int tokenCount, int available) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be positive, got " + blockSize);
        }
        if (tokenCount < 0 || tokenCount > available) {
            throw new IllegalArgumentException("tokenCount " + tokenCount + " outside 0.." + available);
        }
    }

    private static PrefixChain ofRun(NamespaceId namespace, HashAlgorithm algorithm, int blockSize, TokenRun tokens) {
        int d = algorithm.digestLength();
        int blocks = tokens.count() / blockSize;
        byte[] hashes = new byte[d]; // h_0; the rest once a block is hashed
        TokenHasher hasher = new TokenHasher(algorithm.newDigest(), tokens, blockSize,
                new byte[Math.max(d + 4 * blockSize, NamespaceId.LENGTH)], d);
        namespace.copyTo(hasher.input, 0);
        hasher.digest.hash(hasher.input, NamespaceId.LENGTH, hashes, 0);
        return new PrefixChain(namespace, algorithm, hashes, blocks, tokens, blockSize, blocks == 0 ? null : hasher,
                0);
    }

    /** What a lazy token chain needs to hash its next block. */
    private record TokenHasher(HashAlgorithm.Digest digest, TokenRun tokens, int blockSize, byte[] input, int d) {

        /** {@code h_i} from {@code h_{i-1}} in {@code hashes}. */
        void hash(byte[] hashes, int i) {
            System.arraycopy(hashes, (i - 1) * d, input, 0, d);
            tokens.copyLittleEndian((i - 1) * blockSize, blockSize, input, d);
            digest.hash(input, d + 4 * blockSize, hashes, i * d);
        }
    }

    /**
     * Hashes the chain up to {@code h_i}. The array grows to at least twice its length (at most room for every block),
     * so hashing a few blocks (the chain memo asks for the first key of every request before it takes a kept chain's
     * array) allocates a few hashes, not room for all, and hashing every block copies at most as much again.
     */
    private synchronized void hashTo(int i) {
        int d = algorithm.digestLength();
        if (computed < i && hashes.length < d * (i + 1)) {
            hashes = Arrays.copyOf(hashes, (int) Math.min((long) d * (blocks + 1),
                    Math.max((long) d * (i + 1), 2L * hashes.length)));
        }
        while (computed < i) {
            hasher.hash(hashes, ++computed);
        }
        if (computed == blocks) {
            hasher = null;
        }
    }

    /**
     * How many leading blocks this token chain and {@code other} share: both in one namespace (so one algorithm and
     * block size), their tokens equal that far. Their hashes are then equal that far too. 0 for an engine chain.
     */
    public int commonBlocks(PrefixChain other) {
        if (tokens == null || other.tokens == null || !namespace.equals(other.namespace)) {
            return 0;
        }
        return Math.min(tokens.common(other.tokens) / blockSize, Math.min(blocks, other.blocks));
    }

    /**
     * Takes the hashes of this chain's first {@code blocks} blocks from {@code source} as far as {@code source} has
     * computed them, instead of hashing them: {@code blocks} must be at most {@link #commonBlocks} of the two.
     * Returns how many were taken. When they share all of this chain's blocks (the same prompt again, or a prefix of
     * it), this chain uses the source's array instead of a copy: both then write the same hash at any index either
     * computes. Call it before the chain is handed to others.
     */
    public int adopt(PrefixChain source, int blocks) {
        if (blocks > commonBlocks(source)) {
            throw new IllegalArgumentException(blocks + " blocks are more than the two chains share");
        }
        int d = algorithm.digestLength();
        int taken;
        byte[] adopted;
        synchronized (source) {
            taken = Math.min(blocks, source.computed);
            if (taken == 0) {
                return 0;
            }
            if (blocks == this.blocks) {
                adopted = source.hashes; // this chain hashes on in it, or in a copy once it outgrows it
            } else {
                adopted = new byte[d * (this.blocks + 1)];
                System.arraycopy(source.hashes, 0, adopted, 0, (taken + 1) * d);
            }
        }
        synchronized (this) {
            if (taken > computed) {
                hashes = adopted;
                computed = taken;
                if (computed == this.blocks) {
                    hasher = null;
                }
            }
        }
        return taken;
    }

    /** How many blocks have been hashed (or adopted) so far. */
    public synchronized int computedBlocks() {
        return computed;
    }

    /**
     * Bytes this chain holds on to: its hashes (as many as it has blocks, allocated or not yet: a chain kept is
     * hashed on) and the token array it reads.
     */
    public long retainedBytes() {
        return (long) algorithm.digestLength() * (blocks + 1) + (tokens == null ? 0 : tokens.retainedBytes());
    }

    /**
     * A chain from an engine's own block hashes (already prefix-chained by the engine, e.g. vLLM's block hashes):
     * {@code h_i = H("promptcache.engine-chain.v1" || namespaceId || engineHash_i)}. Such keys never equal token
     * keys, so a namespace must use one input form consistently. The engine is trusted for token exactness.
     */
    public static PrefixChain ofEngineChain(NamespaceId namespace, HashAlgorithm algorithm, List<byte[]> engineHashes) {
        int d = algorithm.digestLength();
        int blocks = engineHashes.size();
        byte[] hashes = new byte[d * (blocks + 1)];
        HashAlgorithm.Digest digest = algorithm.newDigest();
        byte[] nsInput = new byte[NamespaceId.LENGTH];
        namespace.copyTo(nsInput, 0);
        digest.hash(nsInput, NamespaceId.LENGTH, hashes, 0);
        int head = ENGINE_DOMAIN.length + NamespaceId.LENGTH;
        for (int i = 1; i <= blocks; i++) {
            byte[] engineHash = engineHashes.get(i - 1);
            if (engineHash == null || engineHash.length == 0) {
                throw new IllegalArgumentException("engine block hash " + (i - 1) + " is empty");
            }
            byte[] input = new byte[head + engineHash.length];
            System.arraycopy(ENGINE_DOMAIN, 0, input, 0, ENGINE_DOMAIN.length);
            namespace.copyTo(input, ENGINE_DOMAIN.length);
            System.arraycopy(engineHash, 0, input, head, engineHash.length);
            digest.hash(input, input.length, hashes, i * d);
        }
        return new PrefixChain(namespace, algorithm, hashes, blocks, null, 0, null, blocks);
    }

    public NamespaceId namespace() {
        return namespace;
    }

    public HashAlgorithm algorithm() {
        return algorithm;
    }

    /** Number of complete blocks. */
    public int blocks() {
        return blocks;
    }

    /** {@code h_i} (a copy), for {@code 0 <= i <= blocks()}; {@code h_0} is the namespace root. */
    public byte[] hash(int i) {
        checkIndex(i, 0);
        int d = algorithm.digestLength();
        synchronized (this) {
            hashTo(i);
            return Arrays.copyOfRange(hashes, i * d, (i + 1) * d);
        }
    }

    /** The {@code prefixes} key of the prefix of the first {@code i} blocks, {@code 1 <= i <= blocks()}. */
    public PrefixKey key(int i) {
        checkIndex(i, 1);
        return new PrefixKey(namespace, hash(i));
    }

    private void checkIndex(int i, int min) {
        if (i < min || i > blocks) {
            throw new IndexOutOfBoundsException("block " + i + " outside " + min + ".." + blocks);
        }
    }
}
