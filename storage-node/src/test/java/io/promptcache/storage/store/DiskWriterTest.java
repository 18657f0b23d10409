package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The background writer on real files, with its thread held inside the listener to make the queue states
 * deterministic: backpressure, dedup, obsolete writes and the draining stop.
 */
class DiskWriterTest {

    @TempDir
    Path data;

    private DataDirectory directory;
    private final CountDownLatch release = new CountDownLatch(1);
    private final CountDownLatch firstSaved = new CountDownLatch(1);
    private final CopyOnWriteArrayList<String> saved = new CopyOnWriteArrayList<>();

    @BeforeEach
    void setUp() {
        directory = new DataDirectory(data);
    }

    /** A writer whose thread blocks after its first save until {@link #release} opens. */
    private DiskWriter blockingWriter(int queueSize) {
        return new DiskWriter(directory, Durability.BEST_EFFORT, queueSize, 0, new DiskWriter.Listener() {

            @Override
            public void saved(DiskWriter.Job job) {
                saved.add(job.fileId);
                firstSaved.countDown();
                if (Thread.currentThread().getName().equals("promptcache-disk-writer")) {
                    await(release);
                }
            }

            @Override
            public void failed(DiskWriter.Job job, IOException cause) {
                throw new AssertionError("unexpected failure of " + job.fileId, cause);
            }
        });
    }

    private DiskWriter.Job register(DiskWriter writer, String fileId, String content) {
        ByteBuf body = Unpooled.copiedBuffer(content.getBytes());
        try {
            return writer.register("b", "k-" + fileId, fileId, body);
        } finally {
            body.release();
        }
    }

    @Test
    void shouldWriteItselfWhenTheQueueStaysFullAndLoseNothing() throws Exception {
        // Given: the writer thread is held after its first save, and the queue (2) is filled behind it
        DiskWriter writer = blockingWriter(2);
        writer.submit(register(writer, id(0), "zero"));
        assertThat(firstSaved.await(10, TimeUnit.SECONDS)).isTrue();
        writer.submit(register(writer, id(1), "one"));
        writer.submit(register(writer, id(2), "two"));
        assertThat(writer.queueDepth()).isEqualTo(2);
        // When: level 1 (offer) and level 2 (50 ms wait) fail
        long start = System.nanoTime();
        writer.submit(register(writer, id(3), "three"));
        // Then: level 3, the caller wrote it
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(DiskWriter.QUEUE_WAIT);
        assertThat(writer.queueFullFallbacks()).isEqualTo(1);
        assertThat(Files.readString(directory.objectFile(id(3)))).isEqualTo("three");
        release.countDown();
        assertThat(writer.stop(Duration.ofSeconds(10))).as("clean stop").isTrue();
        for (int i = 0; i < 4; i++) {
            assertThat(directory.objectFile(id(i))).exists();
        }
        assertThat(writer.saves()).isEqualTo(4);
        assertThat(saved).hasSize(4);
    }

    @Test
    void shouldNotQueueABodyTwiceAndSkipObsoleteWrites() throws Exception {
        DiskWriter writer = blockingWriter(8);
        writer.submit(register(writer, id(0), "zero"));
        assertThat(firstSaved.await(10, TimeUnit.SECONDS)).isTrue();
        DiskWriter.Job pending = register(writer, id(1), "one");
        assertThat(register(writer, id(1), "one again")).as("dedup").isNull();
        assertThat(writer.dedupSkips()).isEqualTo(1);
        writer.submit(pending);
        ByteBuf readable = writer.pendingBody(id(1));
        assertThat(readable).as("a pending body stays readable").isNotNull();
        assertThat(readable.toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("one");
        readable.release();
        DiskWriter.Job doomed = register(writer, id(2), "two");
        writer.submit(doomed);
        // When: the object of id(2) is deleted before its write
        writer.cancel(id(2));
        release.countDown();
        assertThat(writer.stop(Duration.ofSeconds(10))).isTrue();
        // Then
        assertThat(directory.objectFile(id(1))).hasContent("one");
        assertThat(directory.objectFile(id(2))).doesNotExist();
        assertThat(writer.obsoleteSkips()).isEqualTo(1);
        assertThat(writer.pendingBody(id(1))).isNull();
    }

    @Test
    void shouldReportAStopThatCouldNotDrain() throws Exception {
        DiskWriter writer = blockingWriter(4);
        writer.submit(register(writer, id(0), "zero"));
        assertThat(firstSaved.await(10, TimeUnit.SECONDS)).isTrue();
        writer.submit(register(writer, id(1), "one"));
        assertThat(writer.stop(Duration.ofMillis(200))).as("the writer is stuck: not clean").isFalse();
        release.countDown();
    }

    private static String id(int i) {
        return String.format("%032x", i + 0xabc);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
