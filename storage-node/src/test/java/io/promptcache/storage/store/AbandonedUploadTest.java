package io.promptcache.storage.store;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.MultipartUploads.Abandoned;
import io.promptcache.storage.store.MultipartUploads.PartRef;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Uploads no call touched for the idle time are aborted as AbortMultipartUpload would abort them: their parts'
 * bytes and files go, the references their copied parts held on a parent are released, a client coming back gets
 * NoSuchUpload; an upload whose last part is younger than the idle time stays, and a part that was still streaming
 * when its upload went fails at its end and leaves no byte behind.
 */
class AbandonedUploadTest {

    private static final long IDLE = 60_000;

    @TempDir
    Path data;

    @Test
    void shouldAbortAnUploadUntouchedForTheIdleTimeCountingFromItsLastPart() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            // Given: an upload whose one part came last
            store.createBucket("kv-b");
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-b", "big", "application/octet-stream", Map.of());
            Thread.sleep(5);
            ObjectMeta part = Parts.upload(multipart, "kv-b", "big", upload, 1, 3000);
            long touched = part.lastModified();
            assertThat(store.usedBytes()).isEqualTo(3000);

            // When: swept just before the idle time has passed since its part, then at it
            List<Abandoned> early = multipart.abortIdle(IDLE, touched + IDLE - 1, 0);
            List<Abandoned> due = multipart.abortIdle(IDLE, touched + IDLE, 0);

            // Then: only the second sweep aborted it, and its bytes and files are gone
            assertThat(early).isEmpty();
            assertThat(due).containsExactly(new Abandoned(upload, "kv-b", "big", IDLE, 3000));
            assertThat(store.usedBytes()).isZero();
            assertThat(Parts.files(data, upload)).isEmpty();
            assertThat(multipart.list("kv-b", null, null, null, null, 100).uploads()).isEmpty();
            assertThatThrownBy(() -> Parts.upload(multipart, "kv-b", "big", upload, 2, 10)).isInstanceOfSatisfying(
                    S3Exception.class, e -> assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_UPLOAD));
            assertThat(multipart.abortIdle(IDLE, touched + 2 * IDLE, 0)).isEmpty();
        }
    }

    @Test
    void shouldReleaseWhatACopiedPartHeldOfItsParent() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            // Given: a continuation's upload left after its copied part (a store interrupted between its calls), and
            // its parent deleted since: the part still holds the parent's bytes
            store.createBucket("kv-b");
            byte[] parent = ObjectStoreTest.randomBytes(4096, 5);
            try (ObjectUpload put = store.beginPut("kv-b", "parent", parent.length, "application/octet-stream",
                    Map.of())) {
                put.write(parent, 0, parent.length);
                put.commit(null);
            }
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-b", "child", "application/octet-stream", Map.of());
            ObjectMeta copied = multipart.copyPart("kv-b", "child", upload, 1, store.head("kv-b", "parent"), 0,
                    3000);
            store.delete("kv-b", "parent");
            assertThat(store.usedBytes()).isEqualTo(3000); // the parent's file, cut to what the part reads

            // When
            List<Abandoned> swept = multipart.abortIdle(IDLE, copied.lastModified() + IDLE, 0);

            // Then: the parent's bytes are free; the copied part held none of its own
            assertThat(swept).containsExactly(new Abandoned(upload, "kv-b", "child", IDLE, 0));
            assertThat(store.usedBytes()).isZero();
        }
    }

    @Test
    void shouldLeaveNoByteOfAPartStillStreamingWhenItsUploadWasAborted() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            // Given: a part half sent to an upload created long ago, and another upload touched just now
            store.createBucket("kv-b");
            MultipartUploads multipart = store.multipart();
            String old = multipart.create("kv-b", "old", "application/octet-stream", Map.of());
            long created = multipart.upload("kv-b", "old", old).initiatedMs();
            try (ObjectUpload part = multipart.beginPart("kv-b", "old", old, 1, 2000)) {
                part.write(new byte[1000], 0, 1000);
                Thread.sleep(5);
                String fresh = multipart.create("kv-b", "fresh", "application/octet-stream", Map.of());

                // When: the sweep comes while the part streams
                List<Abandoned> swept = multipart.abortIdle(IDLE, created + IDLE, 0);

                // Then: the old upload went (it had no stored part), the fresh one stays; the part fails at its end
                assertThat(swept).extracting(Abandoned::uploadId).containsExactly(old);
                assertThat(multipart.list("kv-b", null, null, null, null, 100).uploads())
                        .extracting(MultipartUploads.Listed::uploadId).containsExactly(fresh);
                part.write(new byte[1000], 0, 1000);
                assertThatThrownBy(() -> part.commit(null)).isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_UPLOAD));
            }
            assertThat(store.usedBytes()).isZero();
            assertThat(Parts.files(data, old)).isEmpty();
        }
    }

    @Test
    void shouldLeaveAnUploadBeingCompletedToItsCompletion() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            // Given: an upload idle for the idle time whose completion is reading its part when the sweep comes (the
            // part is a FIFO the test feeds, so the completion waits in the middle of its read)
            store.createBucket("kv-b");
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-b", "big", "application/octet-stream", Map.of());
            ObjectMeta part = Parts.upload(multipart, "kv-b", "big", upload, 1, 3000);
            Path fifo = fifoInsteadOf(Parts.file(data, upload, part.fileId()));
            Future<ObjectMeta> completion = CompletableFuture.supplyAsync(() -> complete(multipart, "big", upload,
                    List.of(new PartRef(1, part.etag()))));

            // When: the sweep runs while the completion reads
            List<Abandoned> swept;
            try (OutputStream feed = writerOnceRead(fifo)) {
                swept = multipart.abortIdle(IDLE, part.lastModified() + IDLE, 0);
                feed.write(new byte[3000]);
            }

            // Then: the sweep left it, and the completion made the object
            assertThat(swept).isEmpty();
            assertThat(completion.get(30, TimeUnit.SECONDS).size()).isEqualTo(3000);
            assertThat(store.head("kv-b", "big").size()).isEqualTo(3000);
            assertThat(multipart.list("kv-b", null, null, null, null, 100).uploads()).isEmpty();
        }
    }

    @Test
    void shouldAnswerNoSuchUploadToACompletionWhoseUploadWasAbortedWhileItReadTheParts() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 32 << 20)) {
            // Given: a completion of two parts reading the first (a FIFO the test feeds)
            store.createBucket("kv-b");
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-b", "big", "application/octet-stream", Map.of());
            int first = (int) MultipartUploads.MIN_PART_BYTES;
            ObjectMeta one = Parts.upload(multipart, "kv-b", "big", upload, 1, first);
            ObjectMeta two = Parts.upload(multipart, "kv-b", "big", upload, 2, 1000);
            Path fifo = fifoInsteadOf(Parts.file(data, upload, one.fileId()));
            Future<ObjectMeta> completion = CompletableFuture.supplyAsync(() -> complete(multipart, "big", upload,
                    List.of(new PartRef(1, one.etag()), new PartRef(2, two.etag()))));

            // When: the client aborts the upload meanwhile (its second part's file goes), then the first part ends
            try (OutputStream feed = writerOnceRead(fifo)) {
                multipart.abort("kv-b", "big", upload);
                feed.write(new byte[first]);
            }

            // Then: the completion is NoSuchUpload, as if the abort came first, and it holds no byte
            assertThatThrownBy(() -> completion.get(30, TimeUnit.SECONDS)).cause().isInstanceOfSatisfying(
                    S3Exception.class, e -> assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_UPLOAD));
            assertThat(store.usedBytes()).isZero();
            assertThatThrownBy(() -> store.head("kv-b", "big")).isInstanceOfSatisfying(S3Exception.class,
                    e -> assertThat(e.error()).isEqualTo(S3ErrorCode.NO_SUCH_KEY));
        }
    }

    private static ObjectMeta complete(MultipartUploads multipart, String key, String upload, List<PartRef> parts) {
        try {
            return multipart.complete("kv-b", key, upload, parts);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Replaces {@code file} by a FIFO: whoever reads it waits for the bytes the test writes. */
    private static Path fifoInsteadOf(Path file) throws Exception {
        Files.delete(file);
        Process mkfifo = new ProcessBuilder("mkfifo", file.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).as("mkfifo " + file).isTrue();
        return file;
    }

    /**
     * The FIFO's writing end, open once its reader has opened it (the opening waits for that), within 30 s; if the
     * reader never comes, the test fails after opening the reading end itself to release the waiting writer.
     */
    private static OutputStream writerOnceRead(Path fifo) throws Exception {
        CompletableFuture<OutputStream> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return Files.newOutputStream(fifo);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try {
            return writer.get(30, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            FileChannel release = FileChannel.open(fifo, StandardOpenOption.READ);
            try {
                writer.get(30, TimeUnit.SECONDS).close();
            } finally {
                release.close();
            }
            throw new AssertionError("nothing read " + fifo + " within 30 s", e);
        }
    }
}
