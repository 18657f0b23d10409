package io.promptcache.storage.store;

import java.util.ArrayDeque;
import java.util.List;

/**
 * The eviction candidates this node deleted for writes lately, which heartbeats report so the GC tombstones them
 * (lookups must stop returning an object that is gone). An entry stays {@link #WINDOW_MS} (several heartbeats: one
 * lost heartbeat loses nothing) and at most {@link #MAX_ENTRIES} are kept; an entry the GC never saw costs one miss
 * (the engine's GET answers 404 and it reports invalidate).
 */
public final class ReclaimLog {

    /**
     * How long a reclaimed object is reported: ten of the GC's rounds at its default pace (it reads every node's
     * latest heartbeat once a round, 1 s), and several heartbeats. Each heartbeat carries the whole window, so its
     * length multiplies the bytes of the {@code nodes} topic, which every index replica and the GC read: 30 s made
     * them ~0.6-0.9 MB/s on 2 cores under load (docs/benchmarks.md, "Heartbeats at the GC's pace").
     */
    public static final long WINDOW_MS = 10_000;
    /** At most this many reclaimed objects are reported (the newest). */
    public static final int MAX_ENTRIES = 4096;

    /** A candidate deleted at {@code atMs}. */
    public record Entry(String bucket, String key, long atMs) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private volatile Runnable listener = () -> {
    };

    /** Called (on the deleting thread, which must not block on it) after each reclaimed candidate. */
    public void onReclaimed(Runnable listener) {
        this.listener = listener;
    }

    void add(String bucket, String key, long nowMs) {
        synchronized (this) {
            entries.addLast(new Entry(bucket, key, nowMs));
            trim(nowMs);
        }
        listener.run();
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
