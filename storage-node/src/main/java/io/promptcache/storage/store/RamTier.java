package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

import io.netty.buffer.ByteBuf;

/**
 * The RAM tier: object bodies in off-heap buffers under a byte budget, least recently used first out. Readers get
 * a retained view of a body (sent to the socket without a copy into the heap); the tier's own reference is released
 * when the body leaves it, and the memory is freed when the last reader is done. Thread-safe (one lock, held only
 * for map updates).
 */
final class RamTier implements AutoCloseable {

    /** One body in RAM. {@code dirty}: not (yet) on disk. */
    static final class Entry {

        final String bucket;
        final String key;
        final String fileId;
        final ByteBuf body;
        boolean dirty;

        Entry(String bucket, String key, String fileId, ByteBuf body, boolean dirty) {
            this.bucket = bucket;
            this.key = key;
            this.fileId = fileId;
            this.body = body;
            this.dirty = dirty;
        }

        long size() {
            return body.readableBytes();
        }
    }

    private final long capacityBytes;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(64, 0.75f, true);
    private long usedBytes;
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder evictions = new LongAdder();

    RamTier(long capacityBytes) {
        this.capacityBytes = capacityBytes;
    }

    /**
     * Adds a body (the tier takes over the caller's reference) and evicts least recently used bodies until the
     * budget holds. {@code onDirtyVictim} runs under the lock for each evicted body that is not on disk, so the body
     * is never unreachable between leaving RAM and entering the writer; it must not block.
     *
     * @return the evicted entries; their references are the caller's to release
     */
    synchronized List<Entry> admit(Entry entry, Consumer<Entry> onDirtyVictim) {
        Entry previous = entries.put(entry.fileId, entry);
        if (previous != null) {
            usedBytes -= previous.size();
            previous.body.release();
        }
        usedBytes += entry.size();
        List<Entry> victims = new ArrayList<>();
        Iterator<Entry> eldest = entries.values().iterator();
        while (usedBytes > capacityBytes && eldest.hasNext()) {
            Entry victim = eldest.next();
            if (victim == entry) {
                continue;
            }
            eldest.remove();
            usedBytes -= victim.size();
            evictions.increment();
            if (victim.dirty) {
                onDirtyVictim.accept(victim);
            }
            victims.add(victim);
        }
        return victims;
    }

    /** A retained view of the body (the caller releases it), or null if the body is not in RAM. */
    synchronized ByteBuf retain(String fileId) {
        Entry entry = entries.get(fileId);
        if (entry == null) {
            misses.increment();
            return null;
        }
        hits.increment();
        return entry.body.retainedDuplicate();
    }

    synchronized boolean contains(String fileId) {
        return entries.containsKey(fileId);
    }

    /** Whether the body is in RAM and not (yet) on disk. */
    synchronized boolean isDirty(String fileId) {
        Entry entry = entries.get(fileId);
        return entry != null && entry.dirty;
    }

    /** Marks a body as saved on disk: evicting it later just drops it. */
    synchronized void markClean(String fileId) {
        Entry entry = entries.get(fileId);
        if (entry != null) {
            entry.dirty = false;
        }
    }

    /** Drops a body (object deleted or replaced). */
    synchronized void remove(String fileId) {
        Entry entry = entries.remove(fileId);
        if (entry != null) {
            usedBytes -= entry.size();
            entry.body.release();
        }
    }

    /** Every body not on disk, for a graceful stop; each gets {@code action} under the lock. */
    synchronized void forEachDirty(Consumer<Entry> action) {
        for (Entry entry : entries.values()) {
            if (entry.dirty) {
                action.accept(entry);
            }
        }
    }

    long capacityBytes() {
        return capacityBytes;
    }

    synchronized long usedBytes() {
        return usedBytes;
    }

    synchronized int objects() {
        return entries.size();
    }

    long hits() {
        return hits.sum();
    }

    long misses() {
        return misses.sum();
    }

    long evictions() {
        return evictions.sum();
    }

    /** Releases every body. */
    @Override
    public synchronized void close() {
        for (Map.Entry<String, Entry> e : entries.entrySet()) {
            e.getValue().body.release();
        }
        entries.clear();
        usedBytes = 0;
    }
}
