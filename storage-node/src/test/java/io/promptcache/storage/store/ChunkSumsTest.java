package io.promptcache.storage.store;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChunkSumsTest {

    private static final int CHUNK = ChunkSums.CHUNK_BYTES;

    @TempDir
    Path dir;

    @Test
    void shouldComputeTheSameSumsHoweverTheBytesArrive() throws Exception {
        // Given: a body of 3 whole chunks and a partial one
        byte[] body = random(3 * CHUNK + 12_345, 1);
        Path file = dir.resolve("body");
        Files.write(file, body);
        // When: streamed in uneven pieces (as a PUT's network buffers arrive)
        ChunkSums.Builder streamed = new ChunkSums.Builder();
        Random pieces = new Random(2);
        for (int off = 0; off < body.length;) {
            int n = Math.min(body.length - off, 1 + pieces.nextInt(3 * CHUNK / 2));
            ByteBuffer piece = ByteBuffer.wrap(body, off, n);
            streamed.update(piece);
            assertThat(piece.position()).as("the caller's buffer is left as it was").isEqualTo(off);
            off += n;
        }
        // Then: the same sums as read from the file and as computed over the whole buffer, one per started chunk
        CRC32C whole = new CRC32C();
        ChunkSums fromFile = ChunkSums.read(file, body.length, whole);
        assertThat(streamed.build()).isEqualTo(fromFile).isEqualTo(ChunkSums.of(ByteBuffer.wrap(body)));
        assertThat(fromFile.chunks()).isEqualTo(4);
        CRC32C expected = new CRC32C();
        expected.update(body);
        assertThat(whole.getValue()).isEqualTo(expected.getValue());
        assertThat(ChunkSums.of(ByteBuffer.allocate(0)).chunks()).isZero();
    }

    @Test
    void shouldGiveAKeptPrefixNewSumsOnlyWhenItsChunksPassTheirOldOnes() throws Exception {
        // Given: a body of 3 chunks and a bit, with its sums
        byte[] body = random(3 * CHUNK + 999, 5);
        Path file = dir.resolve("trimmed");
        Files.write(file, body);
        ChunkSums sums = ChunkSums.of(file, body.length);
        long keep = CHUNK + 100;
        // When: its first chunk and 100 bytes are kept (a trim)
        CRC32C whole = new CRC32C();
        ChunkSums kept = sums.kept(file, body.length, keep, whole);
        // Then: the sums of those bytes, as if they were the whole body
        assertThat(kept).isEqualTo(ChunkSums.of(ByteBuffer.wrap(body, 0, (int) keep)));
        CRC32C expected = new CRC32C();
        expected.update(body, 0, (int) keep);
        assertThat(whole.getValue()).isEqualTo(expected.getValue());

        // When: a byte of the second chunk rots beyond the kept bytes, but within the chunk they end in
        body[CHUNK + 5000] ^= 0x10;
        Files.write(file, body);
        // Then: no new sums (the whole chunk fails its old sum): a trim would have laundered the rot
        assertThat(sums.kept(file, body.length, keep, new CRC32C())).isNull();
        // and the first chunk alone, intact, still gets them
        assertThat(sums.kept(file, body.length, CHUNK, new CRC32C())).isEqualTo(ChunkSums.of(ByteBuffer.wrap(body,
                0, CHUNK)));
        // and a rotten first chunk never does
        body[7] ^= 0x01;
        Files.write(file, body);
        assertThat(sums.kept(file, body.length, CHUNK, new CRC32C())).isNull();
    }

    @Test
    void shouldFindTheFirstRottenChunkARangeTouches() throws Exception {
        // Given
        byte[] body = random(4 * CHUNK + 100, 3);
        Path file = dir.resolve("body");
        Files.write(file, body);
        ChunkSums sums = ChunkSums.of(file, body.length);
        assertThat(sums.check(file, body.length, 0, body.length, false).badChunk()).isEqualTo(-1);
        // When: one bit flips in chunk 2
        body[2 * CHUNK + 5] ^= 0x10;
        Files.write(file, body);
        // Then: a range touching it finds it, one that does not is clean
        assertThat(sums.check(file, body.length, 0, body.length, false).badChunk()).isEqualTo(2);
        assertThat(sums.check(file, body.length, 3 * CHUNK - 1, 1, false).badChunk()).isEqualTo(2);
        assertThat(sums.check(file, body.length, 0, 2 * CHUNK, false).badChunk()).isEqualTo(-1);
        assertThat(sums.check(file, body.length, 3 * CHUNK, CHUNK + 100, false).badChunk()).isEqualTo(-1);
        assertThat(sums.check(file, body.length, 5, 0, false).badChunk()).isEqualTo(-1);
        // kept, the checked bytes are the span of the chunks a range touches; a range touching the rotten one has none
        ChunkSums.Checked kept = sums.check(file, body.length, CHUNK + 10, 100, true);
        try {
            assertThat(kept.badChunk()).isEqualTo(-1);
            assertThat(kept.spanStart()).isEqualTo(CHUNK);
            byte[] span = new byte[kept.span().readableBytes()];
            kept.span().getBytes(kept.span().readerIndex(), span);
            assertThat(span).isEqualTo(java.util.Arrays.copyOfRange(body, CHUNK, 2 * CHUNK));
        } finally {
            kept.span().release();
        }
        ChunkSums.Checked refused = sums.check(file, body.length, 2 * CHUNK, 10, true);
        assertThat(refused.badChunk()).isEqualTo(2);
        assertThat(refused.span()).isNull();
        // and a file cut short fails the chunks it no longer holds
        Files.write(file, java.util.Arrays.copyOf(body, 4 * CHUNK + 50));
        assertThat(sums.check(file, body.length, 4 * CHUNK, 100, false).badChunk()).isEqualTo(4);
    }

    @Test
    void shouldRoundTripItsRecordAndReadRecordsWithoutSums() {
        ChunkSums sums = ChunkSums.of(ByteBuffer.wrap(random(2 * CHUNK + 1, 4)));
        ExtentRefs.FileEntry entry = new ExtentRefs.FileEntry(2L * CHUNK + 1, 7, 3, sums);
        assertThat(ExtentRefs.FileEntry.decode(entry.encode())).isEqualTo(entry);
        // a record written before chunk checksums: 16 bytes, no sums
        ExtentRefs.FileEntry old = new ExtentRefs.FileEntry(10, 7, 1, null);
        assertThat(old.encode()).hasSize(16);
        assertThat(ExtentRefs.FileEntry.decode(old.encode()).sums()).isNull();
        byte[] otherChunkSize = entry.encode();
        otherChunkSize[16 + 2] = 1;
        assertThatThrownBy(() -> ExtentRefs.FileEntry.decode(otherChunkSize))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static byte[] random(int n, long seed) {
        byte[] bytes = new byte[n];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }
}
