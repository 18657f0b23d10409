package io.promptcache.index.store;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.error.ApiException;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.index.storage.StorageCallException;
import io.promptcache.schema.proto.NodeStatus;

/**
 * Writes one object to several nodes from one streamed body (replicas): the engine's bytes are read once and handed
 * to one PUT per node, each on a thread of its own, through a bounded buffer of {@value #BUFFERED_CHUNKS} chunks of
 * {@value #CHUNK} bytes per copy, so a slow node slows the others and nothing is held whole in memory. A copy whose
 * PUT fails is dropped and the others go on; the object is stored when at least one copy is written, and its record
 * names only the copies that were.
 */
@ApplicationScoped
public class CopyWrites {

    private static final Logger LOG = LoggerFactory.getLogger(CopyWrites.class);
    static final int CHUNK = 64 << 10;
    static final int BUFFERED_CHUNKS = 16;
    /** How long a copy's PUT may take nothing from its buffer before the copy is given up. */
    private static final long STALL_MS = 60_000;
    private static final byte[] END = new byte[0];

    private final NodeStorage storage;
    private final IndexMetrics metrics;
    private final ExecutorService writers = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "copy-write");
        t.setDaemon(true);
        return t;
    });

    CopyWrites(NodeStorage storage, IndexMetrics metrics) {
        this.storage = storage;
        this.metrics = metrics;
    }

    /**
     * PUTs {@code bytes} of {@code body} to every node of {@code nodes}; returns those that hold the object, in the
     * order given.
     *
     * @throws StorageCallException the first node's failure, when no copy was written
     */
    public List<NodeStatus> put(List<NodeStatus> nodes, String key, InputStream body, long bytes, boolean pinned) {
        return fanOut(nodes, NodeStatus::getNodeId, key, body, (node, in) -> storage.put(node, key, in, bytes,
                pinned));
    }

    /** One copy's write of the body it is handed. */
    @FunctionalInterface
    public interface Write<T> {

        void write(T target, InputStream body);
    }

    /**
     * Hands {@code body} (read once) to {@code write} for every target at once, each on a thread of its own; returns
     * the targets whose write succeeded, in the order given. One target: written on this thread.
     *
     * @throws RuntimeException the first target's failure, when no write succeeded
     */
    public <T> List<T> fanOut(List<T> targets, Function<T, String> node, String key, InputStream body,
            Write<T> write) {
        if (targets.size() == 1) {
            write.write(targets.get(0), body);
            return targets;
        }
        List<Copy> copies = new ArrayList<>(targets.size());
        for (T target : targets) {
            Copy copy = new Copy();
            copy.write = writers.submit(() -> {
                try {
                    write.write(target, copy);
                } finally {
                    copy.done = true;
                }
                return null;
            });
            copies.add(copy);
        }
        pump(body, copies);
        List<T> written = new ArrayList<>(targets.size());
        RuntimeException first = null;
        for (int i = 0; i < targets.size(); i++) {
            try {
                copies.get(i).write.get();
                written.add(targets.get(i));
            } catch (ExecutionException e) {
                RuntimeException failure = e.getCause() instanceof RuntimeException r
                        ? r
                        : new IllegalStateException(e.getCause());
                first = first == null ? failure : first;
                LOG.warn("Copy of {} on {} not written ({}); the object has the other copies", key,
                        node.apply(targets.get(i)), failure.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing copies", e);
            }
        }
        metrics.copies(targets.size(), written.size());
        if (written.isEmpty()) {
            throw first;
        }
        return written;
    }

    /**
     * Copies an object an engine PUT itself (two-step store) from {@code primary} to each of {@code others}: a GET
     * there streamed into a PUT, one after the other. Returns the nodes the copy was written to; a failed one is
     * dropped.
     */
    public List<NodeStatus> copy(NodeStatus primary, List<NodeStatus> others, String bucket, String key, long bytes,
            boolean pinned) {
        List<NodeStatus> written = new ArrayList<>(others.size());
        for (NodeStatus other : others) {
            try (InputStream in = storage.get(primary, bucket, key, null).in()) {
                storage.put(other, key, in, bytes, pinned);
                written.add(other);
            } catch (StorageCallException | IOException e) {
                LOG.warn("Copy of {} from {} to {} not written ({}); the object has the other copies", key,
                        primary.getNodeId(), other.getNodeId(), e.getMessage());
            }
        }
        metrics.copies(others.size() + 1, written.size() + 1);
        return written;
    }

    /** Reads the body once, chunk by chunk, into every copy still being written; then ends each. */
    private static void pump(InputStream body, List<Copy> copies) {
        try {
            while (true) {
                byte[] chunk = body.readNBytes(CHUNK);
                if (chunk.length == 0) {
                    break;
                }
                for (Copy copy : copies) {
                    copy.offer(chunk);
                }
            }
        } catch (IOException e) {
            copies.forEach(c -> c.fail(e));
            throw ApiException.badRequest("the store body ended early: " + e.getMessage());
        } finally {
            copies.forEach(c -> c.offer(END));
        }
    }

    @PreDestroy
    void stop() {
        writers.shutdownNow();
    }

    /** One copy's body: the chunks the pump hands it, read by its PUT. */
    private static final class Copy extends InputStream {

        private final BlockingQueue<byte[]> chunks = new ArrayBlockingQueue<>(BUFFERED_CHUNKS + 1);
        private volatile boolean done;
        private volatile IOException failure;
        private Future<?> write;
        private byte[] current;
        private int position;

        /** Hands a chunk over, waiting for room while the PUT still reads; nothing once it is done. */
        void offer(byte[] chunk) {
            try {
                while (!done) {
                    if (chunks.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail(new IOException("interrupted"));
            }
        }

        void fail(IOException e) {
            failure = e;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            if (current == null || position == current.length) {
                if (current == END) {
                    return -1;
                }
                current = next();
                position = 0;
                if (current == END) {
                    return -1;
                }
            }
            int n = Math.min(length, current.length - position);
            System.arraycopy(current, position, buffer, offset, n);
            position += n;
            return n;
        }

        private byte[] next() throws IOException {
            try {
                byte[] chunk = chunks.poll(STALL_MS, TimeUnit.MILLISECONDS);
                if (failure != null) {
                    throw failure;
                }
                if (chunk == null) {
                    throw new IOException("the store body stalled for " + STALL_MS + " ms");
                }
                return chunk;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }
}
