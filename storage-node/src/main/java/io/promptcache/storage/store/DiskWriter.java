package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;

/**
 * The background writer of seed 004: bodies held in RAM are written to disk by one non-daemon thread from a bounded
 * queue. Backpressure has three levels: a non-blocking offer, then a short wait, then the caller writes the body
 * itself (so no write is ever dropped). A body already pending is not queued twice (dedup), a write made obsolete
 * by a delete is skipped or undone, and {@link #stop} drains the queue (in-flight submissions first, then a
 * sentinel that is always last) and says whether it finished in time.
 */
final class DiskWriter {

    private static final Logger LOG = LoggerFactory.getLogger(DiskWriter.class);
    /** Level 2 of the backpressure: how long a submission waits for room before writing itself. */
    static final Duration QUEUE_WAIT = Duration.ofMillis(50);
    private static final Duration FIRST_RETRY_DELAY = Duration.ofMillis(50);

    /** What happens after a write. */
    interface Listener {

        /** The body is on disk (renamed into place). */
        void saved(Job job);

        /** The body could not be written after every attempt. */
        void failed(Job job, IOException cause);
    }

    /** One body to write. The job owns a reference to the body until it is written or dropped. */
    static final class Job {

        final String bucket;
        final String key;
        final String fileId;
        private final ByteBuf body;
        private State state = State.PENDING;
        private boolean cancelled;

        private Job(String bucket, String key, String fileId, ByteBuf body) {
            this.bucket = bucket;
            this.key = key;
            this.fileId = fileId;
            this.body = body;
        }
    }

    private enum State {
        PENDING,
        WRITING,
        DONE
    }

    private static final Job SENTINEL = new Job("", "", "", null);

    private final DataDirectory directory;
    private final boolean persistent;
    private final int retries;
    private final Listener listener;
    private final BlockingQueue<Job> queue;
    private final ConcurrentHashMap<String, Job> pending = new ConcurrentHashMap<>();
    private final Thread thread;
    private final Object lifecycle = new Object();
    private int inflightSubmits;
    private boolean closing;

    private final LongAdder saves = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder dedupSkips = new LongAdder();
    private final LongAdder queueFullFallbacks = new LongAdder();
    private final LongAdder obsoleteSkips = new LongAdder();
    private final LongAdder retryCount = new LongAdder();

    DiskWriter(DataDirectory directory, Durability durability, int queueSize, int retries, Listener listener) {
        this.directory = directory;
        this.persistent = durability == Durability.PERSISTENT;
        this.retries = persistent ? retries : 0;
        this.listener = listener;
        this.queue = new ArrayBlockingQueue<>(queueSize);
        this.thread = new Thread(this::run, "promptcache-disk-writer");
        thread.setDaemon(false);
        thread.start();
    }

    /**
     * Registers a body to write (non-blocking: safe under the RAM tier's lock). Returns null if a write of this
     * file is already pending (dedup); otherwise the job, to pass to {@link #submit}.
     */
    Job register(String bucket, String key, String fileId, ByteBuf body) {
        Job job = new Job(bucket, key, fileId, body.retainedDuplicate());
        if (pending.putIfAbsent(fileId, job) != null) {
            job.body.release();
            dedupSkips.increment();
            return null;
        }
        return job;
    }

    /** Queues a registered job with three-level backpressure; after {@link #stop}, writes it synchronously. */
    void submit(Job job) {
        synchronized (lifecycle) {
            if (closing) {
                write(job);
                return;
            }
            inflightSubmits++;
        }
        try {
            if (!queue.offer(job) && !queue.offer(job, QUEUE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                queueFullFallbacks.increment();
                write(job);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            write(job);
        } finally {
            synchronized (lifecycle) {
                inflightSubmits--;
                lifecycle.notifyAll();
            }
        }
    }

    /** A retained view of a body whose write is pending, or null. */
    ByteBuf pendingBody(String fileId) {
        Job job = pending.get(fileId);
        if (job == null) {
            return null;
        }
        synchronized (job) {
            return job.state == State.DONE ? null : job.body.retainedDuplicate();
        }
    }

    /** Whether a write of the body is queued or running. */
    boolean isPending(String fileId) {
        Job job = pending.get(fileId);
        if (job == null) {
            return false;
        }
        synchronized (job) {
            return job.state != State.DONE;
        }
    }

    /** The object was deleted or replaced: a pending write is skipped, one in progress is undone after it ends. */
    void cancel(String fileId) {
        Job job = pending.remove(fileId);
        if (job == null) {
            return;
        }
        synchronized (job) {
            job.cancelled = true;
        }
    }

    int queueDepth() {
        return queue.size();
    }

    int pendingWrites() {
        return pending.size();
    }

    private void run() {
        while (true) {
            Job job;
            try {
                job = queue.take();
            } catch (InterruptedException e) {
                LOG.warn("Disk writer interrupted with {} writes queued", queue.size());
                return;
            }
            if (job == SENTINEL) {
                return;
            }
            write(job);
        }
    }

    private void write(Job job) {
        synchronized (job) {
            if (job.state != State.PENDING) {
                return;
            }
            if (job.cancelled) {
                finish(job);
                obsoleteSkips.increment();
                return;
            }
            job.state = State.WRITING;
        }
        IOException failure = null;
        for (int attempt = 0; attempt <= retries; attempt++) {
            if (attempt > 0) {
                retryCount.increment();
                sleep(FIRST_RETRY_DELAY.multipliedBy(1L << (attempt - 1)));
            }
            try {
                writeFile(job);
                failure = null;
                break;
            } catch (IOException e) {
                failure = e;
            }
        }
        boolean undo;
        synchronized (job) {
            undo = job.cancelled;
            finish(job);
        }
        pending.remove(job.fileId, job);
        if (undo) {
            obsoleteSkips.increment();
            deleteQuietly(directory.objectFile(job.fileId));
        } else if (failure == null) {
            saves.increment();
            listener.saved(job);
        } else {
            failures.increment();
            LOG.warn("Could not write body {} of {}/{} to disk after {} attempt(s): {}", job.fileId, job.bucket,
                    job.key, retries + 1, failure.toString());
            listener.failed(job, failure);
        }
    }

    private static void finish(Job job) {
        job.state = State.DONE;
        job.body.release();
    }

    /** Temp file, fsync under {@code persistent}, rename into place: a crash never leaves a partial body. */
    private void writeFile(Job job) throws IOException {
        Path part = directory.partFile(job.fileId);
        Path target = directory.objectFile(job.fileId);
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer bytes = job.body.nioBuffer();
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            if (persistent) {
                channel.force(true);
            }
        } catch (IOException e) {
            deleteQuietly(part);
            throw e;
        }
        Files.createDirectories(target.getParent());
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        if (persistent) {
            DataDirectory.syncDirectory(target.getParent());
        }
    }

    /**
     * Graceful stop: waits for submissions in flight, queues the sentinel behind every write, and waits for the
     * thread to reach it.
     *
     * @return true if every queued write finished within {@code timeout}
     */
    boolean stop(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lifecycle) {
            closing = true;
            while (inflightSubmits > 0 && System.nanoTime() < deadline) {
                try {
                    lifecycle.wait(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        try {
            long left = deadline - System.nanoTime();
            if (!queue.offer(SENTINEL, Math.max(0, left), TimeUnit.NANOSECONDS)) {
                LOG.error("Disk writer did not drain in {}: {} writes still queued", timeout, queue.size());
                thread.interrupt();
                return false;
            }
            thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        boolean clean = !thread.isAlive() && queue.isEmpty();
        if (!clean) {
            LOG.error("Disk writer did not drain in {}: {} writes still queued", timeout, queue.size());
            thread.interrupt();
        }
        return clean;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.warn("Could not delete {}: {}", file, e.toString());
        }
    }

    long saves() {
        return saves.sum();
    }

    long failures() {
        return failures.sum();
    }

    long dedupSkips() {
        return dedupSkips.sum();
    }

    long queueFullFallbacks() {
        return queueFullFallbacks.sum();
    }

    long obsoleteSkips() {
        return obsoleteSkips.sum();
    }

    long retries() {
        return retryCount.sum();
    }
}
