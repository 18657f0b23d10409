package io.promptcache.stack.chaos;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Every object the engines stored (answered 201 or 200) in a run, and how often each was hit with its bytes checked:
 * what a soak holds the cluster to (an object LIVE in {@code objects} must still be on its node; one that left the
 * cache left it for a recorded reason). Thread-safe.
 */
final class Ledger {

    /** A stored object: the engines' group that stored it, its (first) node, when, and its checked hits. */
    record Entry(String group, String node, long storedAtMs, LongAdder hits) {
    }

    private final Map<String, Entry> objects = new ConcurrentHashMap<>();
    private final LongAdder hits = new LongAdder();

    void stored(String group, String objectId, String node) {
        objects.putIfAbsent(objectId, new Entry(group, node, System.currentTimeMillis(), new LongAdder()));
    }

    /** A hit of {@code objectId} whose bytes were all checked. */
    void hit(String objectId) {
        hits.increment();
        Entry entry = objects.get(objectId);
        if (entry != null) {
            entry.hits().increment();
        }
    }

    Map<String, Entry> objects() {
        return Map.copyOf(objects);
    }

    int size() {
        return objects.size();
    }

    long hits() {
        return hits.sum();
    }
}
