package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The disk store on real RocksDB and real files. */
class ObjectStoreTest {

    private static final long CAPACITY = 1 << 20;

    @TempDir
    Path data;

    private ObjectStore store;

    @BeforeEach
    void open() {
        store = ObjectStore.open(data, Durability.BEST_EFFORT, CAPACITY);
        store.createBucket("kv-cache");
    }

    @AfterEach
    void close() {
        store.close();
    }

    @ParameterizedTest
    @EnumSource(Durability.class)
    void shouldStoreAnObjectWithItsDigests(Durability durability) throws Exception {
        // Given
        store.close();
        store = ObjectStore.open(data, durability, CAPACITY);
        byte[] body = randomBytes(100_000, 1);
        // When
        ObjectMeta meta = put("kv-cache", "ns/obj-1", body, body.length, md5(body));
        // Then
        ObjectMeta head = store.head("kv-cache", "ns/obj-1");
        assertThat(head).isEqualTo(meta);
        assertThat(head.size()).isEqualTo(body.length);
        assertThat(head.etag()).isEqualTo(HexFormat.of().formatHex(md5(body)));
        CRC32C crc = new CRC32C();
        crc.update(body);
        assertThat(head.crc32c()).isEqualTo((int) crc.getValue());
        assertThat(head.userMetadata()).containsEntry("blocks", "3");
        assertThat(Files.readAllBytes(store.directory().objectFile(head.fileId()))).isEqualTo(body);
        assertThat(store.usedBytes()).isEqualTo(body.length);
        assertThat(store.objectCount()).isEqualTo(1);
        assertThat(tempFiles()).isEmpty();
    }

    @Test
    void shouldRefuseABadDigestAndLeaveNothingBehind() {
        byte[] body = randomBytes(5_000, 2);
        byte[] wrong = md5("other".getBytes(StandardCharsets.UTF_8));
        assertThatThrownBy(() -> put("kv-cache", "k", body, body.length, wrong)).isInstanceOf(S3Exception.class)
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.BAD_DIGEST));
        assertThatThrownBy(() -> store.head("kv-cache", "k")).isInstanceOf(S3Exception.class);
        assertThat(tempFiles()).isEmpty();
        assertThat(objectFiles()).isEmpty();
        assertThat(store.usedBytes()).isZero();
    }

    @Test
    void shouldRefuseABodyShorterThanDeclared() {
        byte[] body = randomBytes(50, 3);
        assertThatThrownBy(() -> put("kv-cache", "k", body, 100, null))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INCOMPLETE_BODY));
        assertThat(tempFiles()).isEmpty();
        assertThat(store.usedBytes()).isZero();
    }

    @Test
    void shouldRefuseWhatExceedsCapacityWithoutWritingIt() throws Exception {
        // Given
        put("kv-cache", "a", randomBytes(600_000, 4), 600_000, null);
        // When / Then: declared length over the free capacity
        assertThatThrownBy(() -> put("kv-cache", "b", randomBytes(500_000, 5), 500_000, null))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INSUFFICIENT_STORAGE))
                .hasMessageContaining("Nothing was written");
        // and unknown length, refused as the bytes arrive
        assertThatThrownBy(() -> put("kv-cache", "c", randomBytes(500_000, 6), -1, null))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INSUFFICIENT_STORAGE));
        assertThat(store.usedBytes()).isEqualTo(600_000);
        assertThat(tempFiles()).isEmpty();
        assertThat(objectFiles()).hasSize(1);
    }

    @Test
    void shouldReleaseCapacityOnceWhenTheBucketVanishesBeforeCommit() throws Exception {
        // Given: an upload in progress into a bucket that is then deleted
        store.createBucket("short-lived");
        S3Exception failure;
        try (ObjectUpload upload = store.beginPut("short-lived", "k", 1000, "application/octet-stream", Map.of())) {
            upload.write(new byte[1000], 0, 1000);
            store.deleteBucket("short-lived");
            // When
            failure = catchS3(() -> upload.commit(null));
        }
        // Then
        assertThat(failure.error()).isEqualTo(S3ErrorCode.NO_SUCH_BUCKET);
        assertThat(store.usedBytes()).isZero();
        assertThat(objectFiles()).isEmpty();
        assertThat(tempFiles()).isEmpty();
    }

    private static S3Exception catchS3(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        try {
            call.call();
        } catch (S3Exception e) {
            return e;
        } catch (Throwable t) {
            throw new AssertionError("expected an S3Exception", t);
        }
        throw new AssertionError("expected an S3Exception");
    }

    @Test
    void shouldReplaceAnObjectAndRemoveTheOldBody() throws Exception {
        put("kv-cache", "k", randomBytes(1000, 7), 1000, null);
        byte[] second = randomBytes(300, 8);
        ObjectMeta meta = put("kv-cache", "k", second, -1, null);
        assertThat(store.head("kv-cache", "k")).isEqualTo(meta);
        assertThat(objectFiles()).hasSize(1);
        assertThat(store.usedBytes()).isEqualTo(300);
        assertThat(store.objectCount()).isEqualTo(1);
    }

    @Test
    void shouldDeleteIdempotently() throws Exception {
        put("kv-cache", "k", randomBytes(10, 9), 10, null);
        store.delete("kv-cache", "k");
        store.delete("kv-cache", "k");
        assertThatThrownBy(() -> store.head("kv-cache", "k"))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.NO_SUCH_KEY));
        assertThat(objectFiles()).isEmpty();
        assertThat(store.usedBytes()).isZero();
        assertThat(store.objectCount()).isZero();
    }

    @Test
    void shouldFollowBucketRules() throws Exception {
        assertThat(store.createBucket("kv-cache")).isFalse();
        assertThat(store.createBucket("other-bucket")).isTrue();
        assertThat(store.listBuckets()).containsOnlyKeys("kv-cache", "other-bucket");
        put("kv-cache", "k", randomBytes(10, 10), 10, null);
        assertThatThrownBy(() -> store.deleteBucket("kv-cache"))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.BUCKET_NOT_EMPTY));
        store.deleteBucket("other-bucket");
        assertThatThrownBy(() -> store.head("other-bucket", "k"))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.NO_SUCH_BUCKET));
        assertThatThrownBy(() -> store.createBucket("Bad_Name"))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INVALID_BUCKET_NAME));
    }

    @Test
    void shouldKeepKeysOutOfTheFileSystem() throws Exception {
        // Given: keys that would escape or confuse a path-based layout, and odd but legal characters
        List<String> keys = List.of("../../../../etc/passwd", "/absolute/path", "..%2F..%2Fescaped", "a b+c%20d",
                "ключ/日本語/🙂", "trailing/", "./.", "C:\\windows\\system32");
        // When
        for (String key : keys) {
            put("kv-cache", key, key.getBytes(StandardCharsets.UTF_8), -1, null);
        }
        // Then: each round-trips, and every body file sits under objects/ with a random name
        for (String key : keys) {
            assertThat(Files.readString(store.directory().objectFile(store.head("kv-cache", key).fileId())))
                    .isEqualTo(key);
        }
        assertThat(objectFiles()).hasSize(keys.size()).allSatisfy(p -> {
            assertThat(p.startsWith(data.resolve("objects"))).isTrue();
            assertThat(p.getFileName().toString()).matches("[0-9a-f]{32}");
        });
        assertThatThrownBy(() -> put("kv-cache", "nul\0key", new byte[1], 1, null))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.INVALID_ARGUMENT));
        assertThatThrownBy(() -> put("kv-cache", "x".repeat(1025), new byte[1], 1, null))
                .satisfies(e -> assertThat(((S3Exception) e).error()).isEqualTo(S3ErrorCode.KEY_TOO_LONG));
    }

    @Test
    void shouldListEveryKeyExactlyOnceAcrossPages() throws Exception {
        // Given: keys in "directories", including multi-byte characters
        TreeSet<String> keys = new TreeSet<>();
        Random random = new Random(11);
        String[] dirs = {"a/", "a/b/", "b/", "", "é/", "z/"};
        for (int i = 0; i < 60; i++) {
            keys.add(dirs[random.nextInt(dirs.length)] + "k" + random.nextInt(1000));
        }
        for (String key : keys) {
            put("kv-cache", key, new byte[1], 1, null);
        }
        // When: pages of 7, with and without a delimiter
        List<String> flat = pageThrough(null, null);
        List<String> rolled = pageThrough("a/", "/");
        // Then
        assertThat(flat).containsExactlyElementsOf(keys);
        List<String> expected = new ArrayList<>(new TreeSet<>(keys.stream().filter(k -> k.startsWith("a/"))
                .map(k -> k.indexOf('/', 2) >= 0 ? k.substring(0, k.indexOf('/', 2) + 1) : k).toList()));
        assertThat(rolled).containsExactlyElementsOf(expected);
        // max-keys 0: an empty, untruncated page
        assertThat(store.list("kv-cache", null, null, null, 0)).isEqualTo(ListPage.EMPTY);
        // start-after
        String middle = flat.get(30);
        assertThat(store.list("kv-cache", null, null, middle, 1000).objects()).extracting(ListPage.Entry::key)
                .containsExactlyElementsOf(flat.subList(31, flat.size()));
    }

    private List<String> pageThrough(String prefix, String delimiter) {
        List<String> seen = new ArrayList<>();
        String after = null;
        for (int guard = 0; guard < 100; guard++) {
            ListPage page = store.list("kv-cache", prefix, delimiter, after, 7);
            List<String> names = new ArrayList<>(page.commonPrefixes());
            page.objects().forEach(e -> names.add(e.key()));
            seen.addAll(new TreeSet<>(names));
            if (!page.truncated()) {
                return seen;
            }
            after = page.nextStartAfter();
        }
        throw new AssertionError("listing did not end");
    }

    private ObjectMeta put(String bucket, String key, byte[] body, long declared, byte[] md5) throws IOException {
        try (ObjectUpload upload = store.beginPut(bucket, key, declared, "application/octet-stream",
                Map.of("blocks", "3"))) {
            for (int off = 0; off < body.length; off += 8192) {
                upload.write(body, off, Math.min(8192, body.length - off));
            }
            return upload.commit(md5);
        }
    }

    private List<Path> tempFiles() {
        return files(data.resolve("tmp"));
    }

    private List<Path> objectFiles() {
        return files(data.resolve("objects"));
    }

    private static List<Path> files(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    static byte[] randomBytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] md5(byte[] b) {
        try {
            return MessageDigest.getInstance("MD5").digest(b);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
