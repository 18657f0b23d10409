package io.promptcache.storage.store;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The objects this node deleted on its own for writes (eviction candidates, or its own least recently used objects):
 * each is queued once to be sent on the {@code reclaims} topic (so the GC tombstones it: lookups must stop returning
 * an object that is gone), and remembered for {@link #WINDOW_MS} so that a GET of it says why it is gone. The queue
 * keeps at most {@link #MAX_UNSENT} (the newest; the dropped ones are counted): an entry the GC never saw costs one
 * miss (the engine's GET answers 404 and it reports invalidate).
 */
public final class ReclaimLog {

    /** How long a reclaimed object is remembered for a GET of it ({@code promptcache-reclaimed} in its 404). */
    public static final long WINDOW_MS = 10_000;
    /** At most this many reclaimed objects are remembered (the newest). */
    public static final int MAX_ENTRIES = 4096;
    /** At most this many reclaimed objects wait to be sent (the newest; a broker away for long loses the oldest). */
    public static final int MAX_UNSENT = 65_536;

    /** A candidate deleted at {@code atMs}. */
    public record Entry(String bucket, String key, long atMs) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private final ArrayDeque<Entry> unsent = new ArrayDeque<>();
    private long dropped;
    private volatile Runnable listener = () -> {
    };

    /** Called (on the deleting thread, which must not block on it) after each reclaimed candidate. */
    public void onReclaimed(Runnable listener) {
        this.listener = listener;
    }

    void add(String bucket, String key, long nowMs) {
        synchronized (this) {
            Entry entry = new Entry(bucket, key, nowMs);
            entries.addLast(entry);
            trim(nowMs);
            queue(entry);
        }
        listener.run();
    }

    /** Takes the reclaimed objects not sent yet, oldest first. */
    public synchronized List<Entry> takeUnsent() {
        List<Entry> taken = List.copyOf(unsent);
        unsent.clear();
        return taken;
    }

    /** Queues {@code entries} again, whose sending failed (a broker away). */
    public synchronized void requeue(List<Entry> failed) {
        failed.forEach(this::queue);
    }

    /** How many reclaimed objects were dropped unsent: the queue was full. */
    public synchronized long unreported() {
        return dropped;
    }

    private void queue(Entry entry) {
        unsent.addLast(entry);
        while (unsent.size() > MAX_UNSENT) {
            unsent.removeFirst();
            dropped++;
        }
    }

    /** The entries of the window ending at {@code nowMs}, oldest first. */
    public synchronized List<Entry> recent(long nowMs) {
        trim(nowMs);
        return List.copyOf(entries);
    }

    /** Whether {@code bucket/key} was reclaimed within the window ending at {@code nowMs}. */
    public synchronized boolean contains(String bucket, String key, long nowMs) {
        trim(nowMs);
        for (Entry entry : entries) {
            if (entry.key().equals(key) && entry.bucket().equals(bucket)) {
                return true;
            }
        }
        return false;
    }

    private void trim(long nowMs) {
        while (!entries.isEmpty()
                && (entries.size() > MAX_ENTRIES || entries.peekFirst().atMs() < nowMs - WINDOW_MS)) {
            entries.removeFirst();
        }
    }
}
