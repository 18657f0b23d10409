package io.promptcache.storage.s3;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.TierPolicy;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A read in flight is never cut short (issue 67; seed 000 §4.2/§6): a range GET of a large body to a slow client
 * (reading about 4 MiB/s) gets every byte right while the object is deleted under it, or while its file's tail is
 * trimmed under it (the object deleted while a continuation still shares its first MiB: the file is cut 2 s later,
 * which cut such reads short before); the delete or trim runs once the read is over.
 */
@QuarkusTest
@TestProfile(ReadsInFlightTest.BodiesOnDisk.class)
class ReadsInFlightTest extends SdkBucketFixture {

    private static final int MIB = 1 << 20;

    @Inject
    ObjectStore store;

    @Test
    void shouldServeAWholeSlowReadOfAnObjectDeletedUnderIt() throws Exception {
        byte[] body = S3SdkTest.bytes(16 * MIB, 21);
        s3.putObject(b -> b.bucket(bucket).key("big"), RequestBody.fromBytes(body));
        long deferredBefore = store.deferredForReads();

        // When: a slow read of all of it, and a DELETE a second into it
        CompletableFuture<byte[]> read = slowRead("big", 0, body.length - 1);
        Thread.sleep(1000);
        s3.deleteObject(b -> b.bucket(bucket).key("big"));
        assertThatThrownBy(() -> s3.headObject(b -> b.bucket(bucket).key("big")))
                .isInstanceOf(NoSuchKeyException.class);

        // Then: the read gets every byte; the file goes once it is over
        assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(body);
        assertThat(store.deferredForReads() - deferredBefore).as("the delete waited for the read").isEqualTo(1);
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> store.filesBeingRead() == 0);
    }

    @Test
    void shouldServeAWholeSlowReadOfATailTrimmedUnderIt() throws Exception {
        // Given: a 24 MiB parent, and a continuation sharing its first MiB
        byte[] parent = S3SdkTest.bytes(24 * MIB, 22);
        byte[] fresh = S3SdkTest.bytes(100_000, 23);
        continuation("p", parent, "c", MIB, fresh);
        long usedBefore = store.usedBytes();

        // When: a slow read of the parent's last 20 MiB (the tail only it reads), and the parent deleted a second
        // into it: its file is to be cut to the shared MiB 2 s later
        CompletableFuture<byte[]> read = slowRead("p", 4 * MIB, parent.length - 1);
        Thread.sleep(1000);
        s3.deleteObject(b -> b.bucket(bucket).key("p"));

        // Then: the read gets every byte of the range; the tail is cut once the read is over (bodies on disk)
        assertThat(read.get(60, TimeUnit.SECONDS)).isEqualTo(Arrays.copyOfRange(parent, 4 * MIB, parent.length));
        boolean trims = store.options().policy() == TierPolicy.WRITE_THROUGH && !store.options().asyncWrites();
        if (trims) {
            assertThat(store.usedBytes()).isEqualTo(usedBefore - (parent.length - MIB));
        }
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> store.filesBeingRead() == 0);
        byte[] continuation = new byte[MIB + fresh.length];
        System.arraycopy(parent, 0, continuation, 0, MIB);
        System.arraycopy(fresh, 0, continuation, MIB, fresh.length);
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("c")).asByteArray()).isEqualTo(continuation);
    }

    @Test
    void shouldLetGoOfTheFilesOfAReadWhoseClientWentAway() throws Exception {
        // Given: a continuation sharing 20 MiB of its parent's file, then 4 MiB of its own: its GET is sent in
        // windows, file by file
        byte[] parent = S3SdkTest.bytes(24 * MIB, 24);
        continuation("p2", parent, "c2", 20 * MIB, S3SdkTest.bytes(4 * MIB, 25));

        // When: a client reads its first MiB and goes away (the rest still to send: the node waits on the socket)
        try (var in = s3.getObject(b -> b.bucket(bucket).key("c2"))) {
            assertThat(in.readNBytes(MIB)).isEqualTo(Arrays.copyOf(parent, MIB));
            assertThat(store.filesBeingRead()).as("the read holds its file").isPositive();
            in.abort();
        }

        // Then: the read is over for the node too: it holds no file any more
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> store.filesBeingRead() == 0);
    }

    /**
     * Stores {@code parent} as {@code parentKey}, then {@code key}: its first {@code shared} bytes copied from it (by
     * reference), then {@code fresh}.
     */
    private void continuation(String parentKey, byte[] parent, String key, int shared, byte[] fresh) {
        s3.putObject(b -> b.bucket(bucket).key(parentKey), RequestBody.fromBytes(parent));
        Continuations.store(s3, bucket, parentKey, key, shared, fresh);
    }

    /** A RAM tier too small for these bodies: they are read from their files. */
    public static class BodiesOnDisk implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.tier.ram-capacity-bytes", Integer.toString(MIB));
        }
    }

    /** Bytes {@code first..last} of {@code key}, read at about 4 MiB/s (64 KiB every 15 ms), in the background. */
    private CompletableFuture<byte[]> slowRead(String key, long first, long last) {
        return CompletableFuture.supplyAsync(() -> {
            byte[] out = new byte[(int) (last - first + 1)];
            try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key).range("bytes=" + first + "-" + last))) {
                int at = 0;
                while (at < out.length) {
                    int n = in.read(out, at, Math.min(64 * 1024, out.length - at));
                    if (n < 0) {
                        return Arrays.copyOf(out, at); // cut short
                    }
                    at += n;
                    Thread.sleep(15);
                }
                return out;
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("the read failed: " + e, e);
            }
        });
    }
}
