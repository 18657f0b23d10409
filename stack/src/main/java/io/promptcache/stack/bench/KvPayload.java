package io.promptcache.stack.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The KV bytes the load generator stores: per block, its block id (8 bytes, little-endian) and then filler. Two
 * prompts sharing a prefix store the same bytes for it, so a range GET of a hit can be checked byte for byte: the
 * first {@code n} blocks of whatever object the index returned must be this prompt's first {@code n} blocks.
 */
public final class KvPayload {

    private final int bytesPerBlock;
    private final byte[] filler;

    public KvPayload(long bytesPerBlock) {
        if (bytesPerBlock < Long.BYTES || bytesPerBlock > 64L << 20) {
            throw new IllegalArgumentException("KV bytes per block must be 8 B .. 64 MiB, got " + bytesPerBlock);
        }
        this.bytesPerBlock = (int) bytesPerBlock;
        this.filler = new byte[this.bytesPerBlock];
        new SplittableRandom(42).nextBytes(filler);
    }

    public int bytesPerBlock() {
        return bytesPerBlock;
    }

    /** The object of {@code blockIds}: {@code blockIds.length} blocks. */
    public byte[] object(long[] blockIds) {
        byte[] bytes = new byte[blockIds.length * bytesPerBlock];
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < blockIds.length; i++) {
            System.arraycopy(filler, 0, bytes, i * bytesPerBlock, bytesPerBlock);
            buffer.putLong(i * bytesPerBlock, blockIds[i]);
        }
        return bytes;
    }

    /** Whether {@code bytes} are exactly the first {@code blocks} blocks of {@code blockIds}, every byte of them. */
    public boolean matches(byte[] bytes, long[] blockIds, int blocks) {
        if (bytes.length != (long) blocks * bytesPerBlock) {
            return false;
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < blocks; i++) {
            int start = i * bytesPerBlock;
            if (buffer.getLong(start) != blockIds[i] || Arrays.mismatch(bytes, start + Long.BYTES, start
                    + bytesPerBlock, filler, Long.BYTES, bytesPerBlock) >= 0) {
                return false;
            }
        }
        return true;
    }
}
