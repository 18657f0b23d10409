package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.promptcache.schema.node.RetiringObjects;

/**
 * The objects this node retires: its own least recently used ones, chosen ahead of need when it runs low on room and
 * the GC marked too little, listed in its heartbeats so that the index stops serving them before they are deleted
 * (docs/architecture.md, "Retiring"). One may be deleted once a heartbeat listing it was delivered at least
 * {@link #NOTICE_MS} before. In memory only: a restarted node forgets them (they were not deleted). Thread-safe.
 */
final class Retiring {

    /** At most this many retire at a time (a heartbeat lists them all). */
    static final int MAX = 256;
    /** How long after a heartbeat listing an object was delivered it may be deleted: the index reads it meanwhile. */
    static final long NOTICE_MS = 1_000;

    /**
     * One retiring object version.
     *
     * @param freesBytes what deleting it freed when it was chosen
     * @param chosenAtMs when it was chosen
     * @param announcedAtMs when a heartbeat listing it was first delivered; 0 until then
     */
    record Entry(String bucket, String key, String versionId, long freesBytes, long chosenAtMs, long announcedAtMs) {
    }

    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private long freesBytes;

    synchronized boolean contains(String bucket, String key) {
        return entries.containsKey(RetiringObjects.name(bucket, key));
    }

    /** Retires {@code versionId} of {@code bucket/key}; false if it already retires or {@link #MAX} do. */
    synchronized boolean add(String bucket, String key, String versionId, long frees, long nowMs) {
        if (entries.size() >= MAX || entries.containsKey(RetiringObjects.name(bucket, key))) {
            return false;
        }
        entries.put(RetiringObjects.name(bucket, key), new Entry(bucket, key, versionId, frees, nowMs, 0));
        freesBytes += frees;
        return true;
    }

    /** The {@code bucket/key} of every retiring object, oldest choice first: what a heartbeat lists. */
    synchronized List<String> names() {
        return List.copyOf(entries.keySet());
    }

    /** A heartbeat listing {@code names} was delivered at {@code atMs}. */
    synchronized void announced(Collection<String> names, long atMs) {
        for (String name : names) {
            Entry e = entries.get(name);
            if (e != null && e.announcedAtMs() == 0) {
                entries.put(name, new Entry(e.bucket(), e.key(), e.versionId(), e.freesBytes(), e.chosenAtMs(),
                        atMs));
            }
        }
    }

    /**
     * The retiring objects that may be deleted at {@code nowMs} (announced at least {@link #NOTICE_MS} before), oldest
     * choice first; with {@code retiredForMs} &gt; 0, only those chosen at least that long ago.
     */
    synchronized List<Entry> deletable(long nowMs, long retiredForMs) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries.values()) {
            if (e.announcedAtMs() > 0 && nowMs - e.announcedAtMs() >= NOTICE_MS
                    && (retiredForMs <= 0 || nowMs - e.chosenAtMs() >= retiredForMs)) {
                out.add(e);
            }
        }
        return out;
    }

    /** {@code bucket/key} was deleted (or replaced: a new version is a new object to the node). */
    synchronized void forget(String bucket, String key) {
        Entry e = entries.remove(RetiringObjects.name(bucket, key));
        if (e != null) {
            freesBytes -= e.freesBytes();
        }
    }

    /** {@code bucket/key} is now version {@code versionId}: a retiring object replaced stops retiring. */
    synchronized void update(String bucket, String key, String versionId) {
        Entry e = entries.get(RetiringObjects.name(bucket, key));
        if (e != null && !e.versionId().equals(versionId)) {
            forget(bucket, key);
        }
    }

    synchronized int size() {
        return entries.size();
    }

    /** What deleting every retiring object freed when each was chosen. */
    synchronized long freesBytes() {
        return freesBytes;
    }
}
