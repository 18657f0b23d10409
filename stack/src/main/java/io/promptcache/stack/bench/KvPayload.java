package io.promptcache.stack.bench;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
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
        return blocks(blockIds, 0);
    }

    /**
     * The bytes of blocks {@code from}.. of the object of {@code blockIds} (what a store beyond a hit of {@code from}
     * blocks sends), without building the blocks before them.
     */
    public byte[] blocks(long[] blockIds, int from) {
        byte[] bytes = new byte[(blockIds.length - from) * bytesPerBlock];
        ByteBuffer buffer = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = from; i < blockIds.length; i++) {
            int start = (i - from) * bytesPerBlock;
            System.arraycopy(filler, 0, bytes, start, bytesPerBlock);
            buffer.putLong(start, blockIds[i]);
        }
        return bytes;
    }

    /** A check of the first {@code blocks} blocks of {@code blockIds} fed as the bytes arrive, holding none of them. */
    public Check check(long[] blockIds, int blocks) {
        return new Check(blockIds, blocks);
    }

    /**
     * Compares bytes, in arrival order, with the expected blocks: each block's id byte by byte, its filler by
     * {@link ByteBuffer#mismatch}. {@link #matches()}: every byte equal and exactly as many as expected.
     */
    public final class Check {

        private final long[] blockIds;
        private final long expected;
        private long seen;
        private boolean wrong;

        private Check(long[] blockIds, int blocks) {
            this.blockIds = blockIds;
            this.expected = (long) blocks * bytesPerBlock;
        }

        /** The next bytes of the body (the buffer is read to its limit). */
        public void accept(ByteBuffer bytes) {
            while (bytes.hasRemaining()) {
                int block = (int) (seen / bytesPerBlock);
                if (wrong || seen >= expected || block >= blockIds.length) {
                    wrong = true; // a byte differed, more bytes than the blocks, or blocks the prompt does not have
                    seen += bytes.remaining();
                    bytes.position(bytes.limit());
                    return;
                }
                int at = (int) (seen % bytesPerBlock);
                int n;
                if (at < Long.BYTES) {
                    n = Math.min(Long.BYTES - at, bytes.remaining());
                    for (int i = 0; i < n; i++) {
                        wrong |= bytes.get() != (byte) (blockIds[block] >>> (8 * (at + i)));
                    }
                } else {
                    n = Math.min(bytesPerBlock - at, bytes.remaining());
                    ByteBuffer got = bytes.slice();
                    got.limit(n);
                    wrong |= got.mismatch(ByteBuffer.wrap(filler, at, n)) >= 0;
                    bytes.position(bytes.position() + n);
                }
                seen += n;
            }
        }

        /** The bytes fed so far. */
        public long bytes() {
            return seen;
        }

        /** Whether the bytes fed are exactly the expected blocks. */
        public boolean matches() {
            return !wrong && seen == expected;
        }
    }
}
