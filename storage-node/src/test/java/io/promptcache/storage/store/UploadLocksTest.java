package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Multipart uploads lock one upload at a time: a part of one upload is stored while another upload's lock is held
 * (one lock for every upload kept the node's workers waiting on each other under load), the upload's own part waits
 * for its lock, and a completion in progress is counted until its last end.
 */
class UploadLocksTest {

    @TempDir
    Path data;

    @Test
    void shouldStoreAPartOfOneUploadWhileAnotherUploadIsLocked() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            // Given: two uploads whose ids fall in different stripes, the first one's lock held by another thread
            store.createBucket("kv-b");
            MultipartUploads multipart = store.multipart();
            String held = multipart.create("kv-b", "a", "application/octet-stream", Map.of());
            String otherKey = "b";
            String other = multipart.create("kv-b", otherKey, "application/octet-stream", Map.of());
            for (int i = 0; i < 1000 && multipart.lockOf(other) == multipart.lockOf(held); i++) {
                otherKey = "b" + i;
                other = multipart.create("kv-b", otherKey, "application/octet-stream", Map.of());
            }
            assertThat(multipart.lockOf(other)).isNotSameAs(multipart.lockOf(held));
            CountDownLatch locked = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = new Thread(() -> {
                synchronized (multipart.lockOf(held)) {
                    locked.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            });
            holder.start();
            assertThat(locked.await(10, TimeUnit.SECONDS)).isTrue();
            ExecutorService writers = Executors.newFixedThreadPool(2);
            try {
                // When: a part of each upload is stored
                CompletableFuture<ObjectMeta> heldPart = CompletableFuture.supplyAsync(() -> part(multipart, "a",
                        held), writers);
                String otherId = other;
                String otherPartKey = otherKey;
                CompletableFuture<ObjectMeta> otherPart = CompletableFuture.supplyAsync(() -> part(multipart,
                        otherPartKey, otherId), writers);

                // Then: the other upload's part is stored at once; the locked upload's waits for its lock
                assertThat(otherPart.get(10, TimeUnit.SECONDS).size()).isEqualTo(1000);
                Thread.sleep(200);
                assertThat(heldPart).isNotDone();
                release.countDown();
                assertThat(heldPart.get(10, TimeUnit.SECONDS).size()).isEqualTo(1000);
            } finally {
                release.countDown();
                holder.join(10_000);
                writers.shutdownNow();
            }
            assertThat(multipart.parts("kv-b", "a", held)).hasSize(1);
            assertThat(multipart.parts("kv-b", otherKey, other)).hasSize(1);
        }
    }

    @Test
    void shouldCountACompletionUntilItsLastEnd() {
        UploadLocks locks = new UploadLocks();
        assertThat(locks.of("u1")).isSameAs(locks.of("u1"));
        locks.completionStarted("u1");
        locks.completionStarted("u1");
        locks.completionEnded("u1");
        assertThat(locks.completing("u1")).isTrue();
        assertThat(locks.completing("u2")).isFalse();
        locks.completionEnded("u1");
        assertThat(locks.completing("u1")).isFalse();
    }

    private static ObjectMeta part(MultipartUploads multipart, String key, String uploadId) {
        try {
            return Parts.upload(multipart, "kv-b", key, uploadId, 1, 1000);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
