package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32C;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * The CRC32C of every {@link #CHUNK_BYTES} chunk of a body file (the last one may be shorter), kept with the file's
 * reference count. A range GET served from the file checks the chunks the range touches before a byte is sent, so
 * a flipped bit on disk costs the read of at most one chunk more at each end of the range, never a read of the
 * whole body. Immutable.
 */
public final class ChunkSums {

    /** Bytes per chunk: 4 bytes of checksum per 64 KiB of body (0.006%). */
    public static final int CHUNK_BYTES = 64 << 10;

    /** One scratch chunk per thread: small enough to stay in the CPU cache between the read and the CRC. */
    private static final ThreadLocal<ByteBuffer> SCRATCH = ThreadLocal
            .withInitial(() -> ByteBuffer.allocateDirect(CHUNK_BYTES));

    private final int[] sums;

    private ChunkSums(int[] sums) {
        this.sums = sums;
    }

    /** Chunks covered. */
    public int chunks() {
        return sums.length;
    }

    /**
     * What a check read: the first chunk that failed (or -1), and when asked to keep them, the bytes of the chunks
     * read, which passed (a pooled off-heap buffer the caller releases; null otherwise or on a failure).
     *
     * @param span the bytes of the chunks read, from {@code spanStart} of the file, or null
     * @param spanStart the file offset of the span's first byte
     * @param badChunk the first chunk whose bytes differ from its checksum (or that the file is too short to hold),
     *        or -1
     */
    public record Checked(ByteBuf span, long spanStart, int badChunk) {
    }

    /**
     * Reads the chunks that bytes {@code [offset, offset + length)} of {@code file} (a body of {@code size} bytes)
     * touch and checks each as it arrives (still in the CPU cache). With {@code keep} the chunks are read into one
     * pooled buffer that is returned when all passed: the caller sends those very bytes, so a byte that changes in
     * the file after the check cannot be sent. Without it they go through a per-thread scratch chunk.
     */
    public Checked check(Path file, long size, long offset, long length, boolean keep) throws IOException {
        if (length <= 0) {
            return new Checked(keep ? Unpooled.EMPTY_BUFFER : null, offset, -1);
        }
        int first = (int) (offset / CHUNK_BYTES);
        int last = (int) ((offset + length - 1) / CHUNK_BYTES);
        long spanStart = (long) first * CHUNK_BYTES;
        if (offset + length > size) {
            return new Checked(null, spanStart, last);
        }
        long spanEnd = Math.min((long) (last + 1) * CHUNK_BYTES, size);
        ByteBuf span = keep ? PooledByteBufAllocator.DEFAULT.directBuffer((int) (spanEnd - spanStart)) : null;
        boolean passed = false;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            CRC32C crc = new CRC32C();
            for (int chunk = first; chunk <= last; chunk++) {
                long start = (long) chunk * CHUNK_BYTES;
                int bytes = (int) Math.min(CHUNK_BYTES, size - start);
                if (chunk >= sums.length) {
                    return new Checked(null, spanStart, chunk);
                }
                ByteBuffer target = span != null
                        ? span.nioBuffer(span.writerIndex(), bytes)
                        : SCRATCH.get().clear().limit(bytes);
                int base = target.position();
                while (target.hasRemaining()) {
                    if (channel.read(target, start + target.position() - base) < 0) {
                        return new Checked(null, spanStart, chunk);
                    }
                }
                crc.reset();
                crc.update(target.flip());
                if ((int) crc.getValue() != sums[chunk]) {
                    return new Checked(null, spanStart, chunk);
                }
                if (span != null) {
                    span.writerIndex(span.writerIndex() + bytes);
                }
            }
            passed = true;
            return new Checked(span, spanStart, -1);
        } finally {
            if (span != null && !passed) {
                span.release();
            }
        }
    }

    /** The checksums of the first {@code length} bytes of {@code file}. */
    static ChunkSums of(Path file, long length) throws IOException {
        return read(file, length, new CRC32C());
    }

    /**
     * The checksums of the first {@code length} bytes of {@code file}, computed in one pass that also feeds
     * {@code whole} (the CRC32C of those bytes, for the file's record).
     */
    static ChunkSums read(Path file, long length, CRC32C whole) throws IOException {
        Builder sums = new Builder();
        ByteBuffer buffer = ByteBuffer.allocate(4 * CHUNK_BYTES);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long position = 0;
            while (position < length) {
                buffer.clear().limit((int) Math.min(buffer.capacity(), length - position));
                int n = channel.read(buffer, position);
                if (n < 0) {
                    throw new IOException(file + " has " + position + " bytes, fewer than " + length);
                }
                buffer.flip();
                whole.update(buffer.duplicate());
                sums.update(buffer);
                position += n;
            }
        }
        return sums.build();
    }

    /**
     * The checksums of the first {@code keep} bytes of {@code file} (a body of {@code size} bytes whose checksums are
     * {@code this}), for a trim: every chunk the kept bytes touch is read whole and checked against its checksum
     * first, so a byte that rotted is never given a fresh checksum. Null when one fails (or the file is short): the
     * file must be left as it is, for reads to find the rot. Feeds {@code whole} with the kept bytes.
     */
    ChunkSums kept(Path file, long size, long keep, CRC32C whole) throws IOException {
        Builder kept = new Builder();
        ByteBuffer chunkBytes = ByteBuffer.allocate(CHUNK_BYTES);
        CRC32C crc = new CRC32C();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int chunk = 0; (long) chunk * CHUNK_BYTES < keep; chunk++) {
                long start = (long) chunk * CHUNK_BYTES;
                int bytes = (int) Math.min(CHUNK_BYTES, size - start);
                if (chunk >= sums.length || bytes <= 0) {
                    return null;
                }
                chunkBytes.clear().limit(bytes);
                while (chunkBytes.hasRemaining()) {
                    if (channel.read(chunkBytes, start + chunkBytes.position()) < 0) {
                        return null;
                    }
                }
                chunkBytes.flip();
                crc.reset();
                crc.update(chunkBytes.duplicate());
                if ((int) crc.getValue() != sums[chunk]) {
                    return null;
                }
                chunkBytes.limit((int) Math.min(bytes, keep - start));
                whole.update(chunkBytes.duplicate());
                kept.update(chunkBytes);
            }
        }
        return kept.build();
    }

    /** The checksums of {@code bytes} (a body held in memory). */
    static ChunkSums of(ByteBuffer bytes) {
        Builder sums = new Builder();
        sums.update(bytes);
        return sums.build();
    }

    int encodedLength() {
        return 4 + 4 * sums.length;
    }

    /** Appends the chunk size and the checksums. */
    void encode(ByteBuffer out) {
        out.putInt(CHUNK_BYTES);
        for (int sum : sums) {
            out.putInt(sum);
        }
    }

    /** Reads what {@link #encode} wrote (the rest of {@code in}). */
    static ChunkSums decode(ByteBuffer in) {
        int chunkBytes = in.getInt();
        if (chunkBytes != CHUNK_BYTES || in.remaining() % 4 != 0) {
            throw new IllegalArgumentException("chunk checksums of " + chunkBytes + "-byte chunks, "
                    + in.remaining() + " bytes");
        }
        int[] sums = new int[in.remaining() / 4];
        for (int i = 0; i < sums.length; i++) {
            sums[i] = in.getInt();
        }
        return new ChunkSums(sums);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChunkSums other && Arrays.equals(sums, other.sums);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(sums);
    }

    @Override
    public String toString() {
        return "ChunkSums[" + sums.length + " chunks]";
    }

    /** Computes the checksums of bytes as they stream by. Not thread-safe. */
    static final class Builder {

        private final CRC32C crc = new CRC32C();
        private int[] sums = new int[16];
        private int count;
        private long position;

        /** Counts {@code bytes} (their position is left as it was). */
        void update(ByteBuffer bytes) {
            ByteBuffer rest = bytes.duplicate();
            while (rest.hasRemaining()) {
                int room = CHUNK_BYTES - (int) (position % CHUNK_BYTES);
                int n = Math.min(room, rest.remaining());
                crc.update(rest.slice(rest.position(), n));
                rest.position(rest.position() + n);
                position += n;
                if (n == room) {
                    close();
                }
            }
        }

        void update(byte[] bytes, int offset, int length) {
            update(ByteBuffer.wrap(bytes, offset, length));
        }

        private void close() {
            if (count == sums.length) {
                sums = Arrays.copyOf(sums, count * 2);
            }
            sums[count++] = (int) crc.getValue();
            crc.reset();
        }

        ChunkSums build() {
            if (position % CHUNK_BYTES != 0) {
                close();
            }
            return new ChunkSums(Arrays.copyOf(sums, count));
        }
    }
}
