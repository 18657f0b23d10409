package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Range reads in flight, per body file, and what waits for them: a body file's delete or trim (its last holder went)
 * runs only once no read that began before it is sending from the file (seed 000 §4.2/§6: the grace window protects
 * in-flight reads), so a GET of a large object to a slow client is never cut short by a delete or a trim under it. A
 * read takes a lease on every file it will send from before it checks that the file is still on record; a file freed
 * before the lease is off the record, and the read starts over or misses as before. Work that waited runs on
 * {@code executor}, never on the thread that lets the last lease go (an event loop); work that need not wait runs at
 * once on the caller's thread, as it did before reads were counted. Thread-safe.
 */
final class BodyReaders {

    private final Executor executor;
    private final Map<String, Integer> reading = new HashMap<>();
    private final Map<String, List<Runnable>> waiting = new HashMap<>();
    private final LongAdder deferred = new LongAdder();

    BodyReaders(Executor executor) {
        this.executor = executor;
    }

    /** A lease on {@code fileId} for one read: run it (once; later runs do nothing) when the read is over. */
    Runnable lease(String fileId) {
        synchronized (this) {
            reading.merge(fileId, 1, Integer::sum);
        }
        AtomicBoolean over = new AtomicBoolean();
        return () -> {
            if (over.compareAndSet(false, true)) {
                release(fileId);
            }
        };
    }

    /**
     * Runs {@code work} now, on this thread, if no read is sending from {@code fileId}; else on the executor after the
     * last such read lets go.
     */
    void whenUnread(String fileId, Runnable work) {
        synchronized (this) {
            if (reading.containsKey(fileId)) {
                waiting.computeIfAbsent(fileId, f -> new ArrayList<>(1)).add(work);
                deferred.increment();
                return;
            }
        }
        work.run();
    }

    private void release(String fileId) {
        List<Runnable> work;
        synchronized (this) {
            Integer left = reading.merge(fileId, -1, Integer::sum);
            if (left != null && left > 0) {
                return;
            }
            reading.remove(fileId);
            work = waiting.remove(fileId);
        }
        if (work != null) {
            work.forEach(executor::execute);
        }
    }

    /** Body files with a read in flight now. */
    synchronized int files() {
        return reading.size();
    }

    /** Deletes and trims that waited for a read so far. */
    long deferred() {
        return deferred.sum();
    }
}
