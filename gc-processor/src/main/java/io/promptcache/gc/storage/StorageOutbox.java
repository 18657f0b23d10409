package io.promptcache.gc.storage;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where the GC's calls to storage nodes run: off the Kafka Streams threads, so that no S3 call ever happens inside a
 * Kafka transaction. A slow or refusing node then delays deletes and marks, never a commit: the stream thread cannot
 * outlive its transaction timeout waiting for a node and be fenced, rolling a round's decisions back.
 *
 * <p>
 * The decisions are state first (the ledger's grace queue, the budget keeper's book), committed as usual; a processor
 * hands the calls they need to its {@link Mailbox}, and applies their outcomes on its own stream thread when it next
 * drains the mailbox (its next punctuation). Every call is idempotent (DELETE of an absent key succeeds, a marker
 * set twice is the same marker), so what a crash or a task migration loses in flight is simply asked for again by
 * whoever owns the state next. Bounded: calls queued beyond {@code maxQueued} are refused and asked for again later.
 */
public final class StorageOutbox implements AutoCloseable {

    private final NodeStorage storage;
    private final ExecutorService executor;

    /**
     * @param storage the S3 calls
     * @param workers threads making calls (each call is bounded by the S3 client's call timeout)
     * @param maxQueued calls waiting for a worker at most
     */
    public StorageOutbox(NodeStorage storage, int workers, int maxQueued) {
        this.storage = storage;
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(workers, workers, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(maxQueued), r -> {
                    Thread t = new Thread(r, "gc-storage-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                }, new ThreadPoolExecutor.AbortPolicy());
        pool.allowCoreThreadTimeOut(true);
        this.executor = pool;
    }

    /** An outbox that makes each call at once on the caller's thread (tests: outcomes apply at the next drain). */
    public static StorageOutbox direct(NodeStorage storage) {
        return new StorageOutbox(storage, null);
    }

    private StorageOutbox(NodeStorage storage, ExecutorService executor) {
        this.storage = storage;
        this.executor = executor;
    }

    /** The calls themselves (for a {@link Mailbox}'s tasks). */
    public NodeStorage storage() {
        return storage;
    }

    /** A mailbox for one processor instance (a new one per task start: outcomes for a closed task are dropped). */
    public Mailbox mailbox() {
        return new Mailbox(this);
    }

    /** Runs {@code task} off the caller's thread; false if the outbox is full (ask again later). */
    boolean execute(Runnable task) {
        if (executor == null) {
            task.run();
            return true;
        }
        try {
            executor.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    @Override
    public void close() {
        if (executor != null) {
            executor.shutdownNow();
        }
    }
}
