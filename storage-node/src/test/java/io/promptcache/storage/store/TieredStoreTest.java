package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The RAM tier and the background writer under each policy, on real RocksDB and files. */
class TieredStoreTest {

    private static final int KIB = 1024;
    private static final long RAM = 1024 * KIB;

    @TempDir
    Path data;

    private ObjectStore store;

    @AfterEach
    void close() {
        if (store != null) {
            store.close();
        }
    }

    private ObjectStore open(TierPolicy policy, long ram, boolean async) {
        store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 64L << 20)
                .withTiers(policy, ram, async));
        store.createBucket("kv-b");
        return store;
    }

    private void reopen() {
        StoreOptions options = store.options();
        store.close();
        store = ObjectStore.open(options);
    }

    @Test
    void shouldMirrorNewBodiesInRamAndEvictTheLeastRecentlyUsed() throws Exception {
        // Given: write_through, sync, 1 MiB of RAM
        open(TierPolicy.WRITE_THROUGH, RAM, false);
        put("one", 400 * KIB, 1);
        put("two", 400 * KIB, 2);
        // Then: both on disk and in RAM
        assertThat(bodyFile("one")).exists();
        assertThat(read("one")).isEqualTo(bytes(400 * KIB, 1));
        assertThat(fromRam("one")).isTrue();
        // When: a third body; "two" is the least recently used now
        put("three", 400 * KIB, 3);
        // Then
        assertThat(fromRam("two")).as("evicted from RAM").isFalse();
        assertThat(read("two")).as("still served, from disk").isEqualTo(bytes(400 * KIB, 2));
        assertThat(fromRam("one")).isTrue();
        assertThat(fromRam("three")).isTrue();
        TierStats stats = store.tierStats();
        assertThat(stats.ramEvictions()).isEqualTo(1);
        assertThat(stats.ramUsedBytes()).isEqualTo(800 * KIB);
        assertThat(stats.ramHits()).isGreaterThanOrEqualTo(3);
        assertThat(stats.ramMisses()).isGreaterThanOrEqualTo(1);
        // a body over half the budget is not mirrored
        put("big", 600 * KIB, 4);
        assertThat(fromRam("big")).isFalse();
        assertThat(read("big")).isEqualTo(bytes(600 * KIB, 4));
    }

    @Test
    void shouldAcknowledgeFromRamAndWriteToDiskInTheBackground() throws Exception {
        open(TierPolicy.WRITE_THROUGH, RAM, true);
        for (int i = 0; i < 8; i++) {
            put("k" + i, 100 * KIB, i);
        }
        Awaitility.await().atMost(Duration.ofSeconds(20))
                .until(() -> store.tierStats().writerSaves() == 8 && store.tierStats().writerPending() == 0);
        for (int i = 0; i < 8; i++) {
            assertThat(Files.readAllBytes(bodyFile("k" + i))).isEqualTo(bytes(100 * KIB, i));
        }
        // deleting and replacing drop the RAM copies
        store.delete("kv-b", "k0");
        put("k1", 10 * KIB, 99);
        assertThat(read("k1")).isEqualTo(bytes(10 * KIB, 99));
        assertThat(store.stop()).isTrue();
        store = ObjectStore.open(store.options());
        assertThat(store.previousShutdown()).isEqualTo(PreviousShutdown.CLEAN);
        assertThat(store.objectCount()).isEqualTo(7);
        assertThat(read("k1")).isEqualTo(bytes(10 * KIB, 99));
        assertThat(read("k7")).isEqualTo(bytes(100 * KIB, 7));
    }

    @Test
    void shouldWriteBodiesToDiskOnlyWhenEvictedOrStopped() throws Exception {
        // Given: evict_only, 1 MiB of RAM
        open(TierPolicy.EVICT_ONLY, RAM, false);
        put("ka", 300 * KIB, 1);
        put("kb", 300 * KIB, 2);
        assertThat(objectFiles()).as("RAM first: nothing on disk yet").isEmpty();
        // When: RAM overflows, the least recently used body goes to disk
        put("kc", 300 * KIB, 3);
        put("kd", 300 * KIB, 4);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> store.tierStats().writerSaves() == 1);
        assertThat(bodyFile("ka")).exists();
        assertThat(bodyFile("kb")).doesNotExist();
        for (String key : new String[]{"ka", "kb", "kc", "kd"}) {
            assertThat(read(key)).isEqualTo(bytes(300 * KIB, key.charAt(1) - 'a' + 1));
        }
        // When: a graceful stop flushes what is only in RAM
        assertThat(store.stop()).isTrue();
        assertThat(objectFiles()).hasSize(4);
        store = ObjectStore.open(store.options());
        assertThat(store.previousShutdown()).isEqualTo(PreviousShutdown.CLEAN);
        assertThat(store.validation().missingEntriesCleaned()).isZero();
        assertThat(read("kd")).isEqualTo(bytes(300 * KIB, 4));
    }

    @Test
    void shouldKeepARamOnlyNodeWithinItsBudgetAndForgetItOnRestart() throws Exception {
        open(TierPolicy.RAM_ONLY, RAM, false);
        put("x", 600 * KIB, 1);
        assertThat(objectFiles()).isEmpty();
        assertThat(read("x")).isEqualTo(bytes(600 * KIB, 1));
        assertThat(store.capacityBytes()).isEqualTo(RAM);
        assertThatThrownBy(() -> put("y", 600 * KIB, 2)).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.error()).isEqualTo(S3ErrorCode.INSUFFICIENT_STORAGE));
        // unknown length: the buffer grows up to the budget
        put("z", 300 * KIB, 3, -1);
        assertThat(read("z")).isEqualTo(bytes(300 * KIB, 3));
        reopen();
        assertThat(store.objectCount()).isZero();
        assertThat(store.validation().missingEntriesCleaned()).isEqualTo(2);
    }

    @Test
    void shouldCleanAStaleEntryAndNeverServeACorruptChunk() throws Exception {
        // Given: checksums are checked by default; a body of 5 chunks and a lost one
        store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 64L << 20));
        store.createBucket("kv-b");
        int chunk = ChunkSums.CHUNK_BYTES;
        put("lost", 10 * KIB, 1);
        put("rotten", 4 * chunk + 1000, 2);
        Files.delete(bodyFile("lost"));
        // When: one byte of the fourth chunk rots on disk
        DiskRot.flip(bodyFile("rotten"), 3 * chunk + 7);
        // Then: ranges of the intact chunks are served (only the chunks a range touches are read) ...
        assertThat(Bodies.read(store, "kv-b", "rotten", 100, 2 * chunk))
                .isEqualTo(Arrays.copyOfRange(bytes(4 * chunk + 1000, 2), 100, 100 + 2 * chunk));
        assertThat(Bodies.read(store, "kv-b", "rotten", 4 * chunk, 1000))
                .isEqualTo(Arrays.copyOfRange(bytes(4 * chunk + 1000, 2), 4 * chunk, 4 * chunk + 1000));
        assertThat(store.tierStats().corruptBodiesOnRead()).isZero();
        // ... a range that touches the rotten chunk by one byte is refused as missing, the entry removed and counted
        assertThatThrownBy(() -> Bodies.read(store, "kv-b", "rotten", 3 * chunk - 10, 11))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_KEY);
                    assertThat(e.getMessage()).contains("failed its checksum");
                });
        assertThat(store.tierStats().corruptBodiesOnRead()).isEqualTo(1);
        assertThatThrownBy(() -> store.head("kv-b", "rotten")).isInstanceOf(S3Exception.class);
        assertThatThrownBy(() -> read("lost")).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_KEY));
        assertThat(store.tierStats().staleEntriesCleaned()).isEqualTo(2);
        assertThat(store.objectCount()).isZero();
        assertThat(store.usedBytes()).isZero();
    }

    @Test
    void shouldSendTheBytesItCheckedNotWhatTheFileHoldsLater() throws Exception {
        // Given: a range opened (checked) from a disk-only node
        store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 64L << 20));
        store.createBucket("kv-b");
        int chunk = ChunkSums.CHUNK_BYTES;
        put("k", 3 * chunk, 5);
        ObjectMeta meta = store.head("kv-b", "k");
        List<BodySegment> segments = store.openRange("kv-b", "k", meta, 100, 2 * chunk);
        // When: the file changes after the check, before the bytes go out
        DiskRot.flip(bodyFile("k"), chunk + 5);
        // Then: what is sent is what was checked
        assertThat(segments).hasSize(1);
        BodySegment only = segments.get(0);
        byte[] sent = new byte[(int) only.length()];
        only.body().ram().getBytes(only.body().ram().readerIndex() + (int) only.offset(), sent);
        only.release();
        assertThat(sent).isEqualTo(Arrays.copyOfRange(bytes(3 * chunk, 5), 100, 100 + 2 * chunk));
    }

    @Test
    void shouldServeUncheckedWhenTheUserTurnsChecksumsOff() throws Exception {
        store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.BEST_EFFORT, 64L << 20)
                .withVerifyOnRead(false));
        store.createBucket("kv-b");
        put("rotten", 10 * KIB, 2);
        try (FileChannel channel = FileChannel.open(bodyFile("rotten"), StandardOpenOption.WRITE)) {
            channel.write(ByteBuffer.wrap(new byte[]{42}), 5000);
        }
        // the cost of turning them off, shown: the rotten byte is served
        assertThat(read("rotten")[5000]).isEqualTo((byte) 42);
        assertThat(store.tierStats().corruptBodiesOnRead()).isZero();
    }

    @Test
    void shouldKeepSmallBodiesInTheirIndexEntry() throws Exception {
        store = ObjectStore.open(StoreOptions.diskOnly(data, Durability.PERSISTENT, 64L << 20)
                .withInlineThreshold(16 * KIB));
        store.createBucket("kv-b");
        put("small", 10 * KIB, 1);
        put("empty", 0, 2);
        put("large", 20 * KIB, 3);
        put("unknown-length", 1 * KIB, 4, -1);
        assertThat(store.head("kv-b", "small").isInline()).isTrue();
        assertThat(store.head("kv-b", "empty").isInline()).isTrue();
        assertThat(store.head("kv-b", "large").isInline()).isFalse();
        assertThat(store.head("kv-b", "unknown-length").isInline()).as("length unknown up front: a file").isFalse();
        assertThat(objectFiles()).hasSize(2);
        reopen();
        assertThat(store.validation().missingEntriesCleaned()).isZero();
        assertThat(store.objectCount()).isEqualTo(4);
        assertThat(store.usedBytes()).isEqualTo(31 * KIB);
        assertThat(read("small")).isEqualTo(bytes(10 * KIB, 1));
        assertThat(read("empty")).isEmpty();
        store.delete("kv-b", "small");
        assertThat(store.usedBytes()).isEqualTo(21 * KIB);
        assertThatThrownBy(() -> store.head("kv-b", "small")).isInstanceOf(S3Exception.class);
    }

    @Test
    void shouldTellAReplacedObjectFromALostBody() throws Exception {
        // Given: metadata read just before the object is replaced (a GET racing a PUT)
        open(TierPolicy.WRITE_THROUGH, RAM, false);
        put("k", 100 * KIB, 1);
        ObjectMeta before = store.head("kv-b", "k");
        put("k", 100 * KIB, 2);
        // Then: the old body is gone but nothing is lost: the reader is told to read again
        assertThat(store.openRange("kv-b", "k", before, 0, before.size())).isNull();
        assertThat(store.tierStats().staleEntriesCleaned()).isZero();
        assertThat(read("k")).isEqualTo(bytes(100 * KIB, 2));
    }

    private void put(String key, int size, int seed) throws IOException {
        put(key, size, seed, size);
    }

    private void put(String key, int size, int seed, long declared) throws IOException {
        byte[] body = bytes(size, seed);
        try (ObjectUpload upload = store.beginPut("kv-b", key, declared, "application/octet-stream", Map.of())) {
            for (int off = 0; off < body.length; off += 64 * KIB) {
                upload.write(body, off, Math.min(64 * KIB, body.length - off));
            }
            upload.commit(null);
        }
    }

    private byte[] read(String key) throws IOException {
        return Bodies.read(store, "kv-b", key);
    }

    private boolean fromRam(String key) {
        ObjectMeta meta = store.head("kv-b", key);
        BodySegment only = store.openRange("kv-b", key, meta, 0, meta.size()).get(0);
        only.release();
        return only.body().fromRam();
    }

    private Path bodyFile(String key) {
        return store.directory().objectFile(store.head("kv-b", key).fileId());
    }

    private java.util.List<Path> objectFiles() throws IOException {
        try (Stream<Path> files = Files.walk(data.resolve("objects"))) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private static byte[] bytes(int n, int seed) {
        return ObjectStoreTest.randomBytes(n, seed);
    }

    static String utf8(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
