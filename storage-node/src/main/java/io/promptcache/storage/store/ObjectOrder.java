package io.promptcache.storage.store;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * At most one entry per object ({@code bucket/key}), kept in an order: the shared structure of the node's deletion
 * orders ({@link Reclaimables}, {@link Recency}). Thread-safe; {@link #get} reads without the lock.
 *
 * @param <E> the entry
 */
final class ObjectOrder<E> {

    private final TreeSet<E> queue;
    private final Map<String, E> byObject = new ConcurrentHashMap<>();

    ObjectOrder(Comparator<E> order) {
        this.queue = new TreeSet<>(order);
    }

    /** Replaces the object's entry by {@code next.apply(previous entry or null)}; a null result leaves none. */
    synchronized void update(String bucket, String key, UnaryOperator<E> next) {
        E previous = byObject.remove(id(bucket, key));
        if (previous != null) {
            queue.remove(previous);
        }
        E entry = next.apply(previous);
        if (entry != null) {
            queue.add(entry);
            byObject.put(id(bucket, key), entry);
        }
    }

    /** The object's entry, or null. */
    E get(String bucket, String key) {
        return byObject.get(id(bucket, key));
    }

    /** Moves the object from {@code current} to {@code moved} if {@code current} is still its entry. */
    synchronized void move(String bucket, String key, E current, E moved) {
        if (queue.remove(current)) {
            queue.add(moved);
            byObject.put(id(bucket, key), moved);
        }
    }

    /** Forgets the object. */
    void forget(String bucket, String key) {
        update(bucket, key, previous -> null);
    }

    /** The entry after {@code previous} in order (null: the first); null when none is left. */
    synchronized E next(E previous) {
        return previous == null ? (queue.isEmpty() ? null : queue.first()) : queue.higher(previous);
    }

    synchronized List<E> snapshot() {
        return List.copyOf(queue);
    }

    boolean isEmpty() {
        return byObject.isEmpty();
    }

    private static String id(String bucket, String key) {
        return bucket + '\0' + key;
    }
}
