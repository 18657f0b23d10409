package io.promptcache.storage.s3;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.store.ChunkSums;
import io.promptcache.storage.store.DiskRot;
import io.promptcache.storage.store.ObjectStore;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A byte that rots in a body file on disk is never served (issue 18), on a node with default settings but for the
 * RAM tier (off, so every GET reads the files): range GETs through the real SDK check the chunks they touch, a
 * corrupt one answers 404 NoSuchKey (the object is removed: a client treats it as the miss it now is) and is counted;
 * ranges of intact chunks, and objects sharing only intact chunks of the file, are served as before.
 */
@QuarkusTest
@TestProfile(TierProfiles.DiskOnly.class)
class CorruptionTest extends SdkBucketFixture {

    private static final int CHUNK = ChunkSums.CHUNK_BYTES;
    private static final int MIB = 1 << 20;

    @Inject
    ObjectStore store;

    @Inject
    StorageConfig config;

    @Test
    void shouldNeverServeARottenChunkOfAFileOrOfAContinuationSharingIt() throws Exception {
        // Given: a 1 MiB parent, and a continuation sharing its first 4 chunks (UploadPartCopy) plus new bytes
        byte[] parent = S3SdkTest.bytes(MIB, 31);
        s3.putObject(b -> b.bucket(bucket).key("parent"), RequestBody.fromBytes(parent));
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("turn2")).uploadId();
        String copied = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("parent").destinationBucket(bucket)
                .destinationKey("turn2").uploadId(id).partNumber(1).copySourceRange("bytes=0-" + (4 * CHUNK - 1)))
                .copyPartResult().eTag();
        byte[] fresh = S3SdkTest.bytes(50_000, 32);
        String uploaded = s3.uploadPart(b -> b.bucket(bucket).key("turn2").uploadId(id).partNumber(2),
                RequestBody.fromBytes(fresh)).eTag();
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("turn2").uploadId(id).multipartUpload(m -> m.parts(
                CompletedPart.builder().partNumber(1).eTag(copied).build(),
                CompletedPart.builder().partNumber(2).eTag(uploaded).build())));
        long corruptBefore = store.tierStats().corruptBodiesOnRead();
        // When: one byte of the parent's chunk 6 (beyond what the continuation shares) rots on disk
        DiskRot.flip(bodyFileHolding(parent), 6 * CHUNK + 123);
        // Then: the continuation, which reads only intact chunks of that file, is served whole
        byte[] turn2 = s3.getObjectAsBytes(b -> b.bucket(bucket).key("turn2")).asByteArray();
        assertThat(turn2).isEqualTo(concat(Arrays.copyOf(parent, 4 * CHUNK), fresh));
        // ranges of the parent's intact chunks are served
        assertThat(range("parent", 0, 6 * CHUNK - 1)).isEqualTo(Arrays.copyOf(parent, 6 * CHUNK));
        assertThat(range("parent", 7 * CHUNK, MIB - 1)).isEqualTo(Arrays.copyOfRange(parent, 7 * CHUNK, MIB));
        // a range touching the rotten chunk is a 404, the parent is gone, and the node counted it
        assertThatThrownBy(() -> range("parent", 6 * CHUNK - 1, 6 * CHUNK))
                .isInstanceOfSatisfying(NoSuchKeyException.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(404);
                    assertThat(e.awsErrorDetails().errorMessage()).contains("failed its checksum");
                });
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("parent")))
                .isInstanceOf(NoSuchKeyException.class);
        assertThat(store.tierStats().corruptBodiesOnRead()).isEqualTo(corruptBefore + 1);
        // and the continuation still reads right: its chunks are intact
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("turn2")).asByteArray()).isEqualTo(turn2);
    }

    @Test
    void shouldCheckLongReadsOnAWorkerToo() throws Exception {
        // Given: two 6 MiB objects (a GET longer than the event loop checks itself)
        byte[] good = S3SdkTest.bytes(6 * MIB, 41);
        byte[] bad = S3SdkTest.bytes(6 * MIB, 42);
        s3.putObject(b -> b.bucket(bucket).key("good"), RequestBody.fromBytes(good));
        s3.putObject(b -> b.bucket(bucket).key("bad"), RequestBody.fromBytes(bad));
        long corruptBefore = store.tierStats().corruptBodiesOnRead();
        // When
        DiskRot.flip(bodyFileHolding(bad), 5 * MIB + 17);
        // Then
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("good")).asByteArray()).isEqualTo(good);
        assertThat(range("good", MIB, 6 * MIB - 1)).isEqualTo(Arrays.copyOfRange(good, MIB, 6 * MIB));
        assertThatThrownBy(() -> s3.getObjectAsBytes(b -> b.bucket(bucket).key("bad")))
                .isInstanceOf(NoSuchKeyException.class);
        assertThat(store.tierStats().corruptBodiesOnRead()).isEqualTo(corruptBefore + 1);
    }

    private byte[] range(String key, long first, long last) {
        return s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=" + first + "-" + last))
                .asByteArray();
    }

    /** The body file on disk whose bytes are exactly {@code body}. */
    private Path bodyFileHolding(byte[] body) throws IOException {
        try (Stream<Path> files = Files.walk(config.dataDir().resolve("objects"))) {
            List<Path> holding = files.filter(Files::isRegularFile).filter(f -> {
                try {
                    return Files.size(f) == body.length && Arrays.equals(Files.readAllBytes(f), body);
                } catch (IOException e) {
                    return false;
                }
            }).toList();
            assertThat(holding).hasSize(1);
            return holding.get(0);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
