package io.promptcache.schema.hash;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The XXH3-64 rolling sequence hashes used for routing hints (Mooncake RFC #1527 {@code seq_hashes}, as
 * NVIDIA Dynamo's KV router computes them): with {@code X(b) = XXH3-64(seed 1337, b)},
 * {@code local_i = X(tokens of block i as little-endian uint32)}, {@code seq_0 = local_0},
 * {@code seq_i = X(LE64(seq_{i-1}) || LE64(local_i))}. Only complete blocks count. Not namespaced:
 * routing keeps one tracker per namespace instead. Only a hint: 64 bits, not collision resistant.
 */
public final class RollingHashChain {

    /** The XXH3 seed of the RFC #1527 / Dynamo chain. */
    public static final long SEED = 1337L;

    /** {@code EngineEvent.hash_scheme} of block hashes that are this chain (RFC #1527 {@code seq_hashes}). */
    public static final String SCHEME = "xxh3-64-rolling-1337";

    private static final Hasher64 XXH3_64 = Hashing.xxh3_64(SEED);

    private RollingHashChain() {
    }

    /** Sequence hashes of the complete blocks of {@code tokens}. */
    public static long[] of(int blockSize, int[] tokens) {
        return chain(false, 0, blockSize, tokens);
    }

    /**
     * Sequence hashes of the complete blocks of {@code tokens} that follow the block whose sequence hash is
     * {@code parent}: {@code of(b, p ++ t)} ends with {@code continued(of(b, p)[last], b, t)}.
     */
    public static long[] continued(long parent, int blockSize, int[] tokens) {
        return chain(true, parent, blockSize, tokens);
    }

    private static long[] chain(boolean hasParent, long parent, int blockSize, int[] tokens) {
        if (blockSize < 1) {
            throw new IllegalArgumentException("blockSize must be positive, got " + blockSize);
        }
        int blocks = tokens.length / blockSize;
        long[] seq = new long[blocks];
        byte[] blockBytes = new byte[4 * blockSize];
        byte[] pair = new byte[16];
        long previous = parent;
        for (int i = 0; i < blocks; i++) {
            Bytes.putIntsLittleEndian(blockBytes, 0, tokens, i * blockSize, blockSize);
            long local = XXH3_64.hashBytesToLong(blockBytes);
            if (i == 0 && !hasParent) {
                seq[i] = local;
            } else {
                Bytes.putLongLittleEndian(pair, 0, previous);
                Bytes.putLongLittleEndian(pair, 8, local);
                seq[i] = XXH3_64.hashBytesToLong(pair);
            }
            previous = seq[i];
        }
        return seq;
    }
}
