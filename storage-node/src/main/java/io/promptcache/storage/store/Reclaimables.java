package io.promptcache.storage.store;

import java.util.Comparator;
import java.util.PriorityQueue;

/**
 * Objects the cluster's GC has already evicted (tombstoned: no lookup returns them) and will delete at the end of
 * their grace window, which the GC marks with the user metadata {@value #MARKER} = the end of that window (ms since
 * the epoch), by a CopyObject of the object onto itself with {@code REPLACE}. When a write needs room the node deletes
 * them early, the earliest deadline first, instead of refusing the write: a cache admits a store by making room.
 * Entries are checked against the current object when used (a replaced or deleted key is skipped).
 */
final class Reclaimables {

    /** User metadata key (without {@code x-amz-meta-}) that marks an object reclaimable. */
    static final String MARKER = "promptcache-reclaimable-after";

    /** One marked object version. */
    record Candidate(long deleteAfterMs, String bucket, String key, String versionId) {
    }

    private final PriorityQueue<Candidate> queue = new PriorityQueue<>(
            Comparator.comparingLong(Candidate::deleteAfterMs));

    /** Remembers {@code meta} if it carries the marker. */
    synchronized void offer(String bucket, String key, ObjectMeta meta) {
        String after = meta.userMetadata().get(MARKER);
        if (after == null) {
            return;
        }
        long deleteAfter;
        try {
            deleteAfter = Long.parseLong(after.trim());
        } catch (NumberFormatException e) {
            return;
        }
        queue.add(new Candidate(deleteAfter, bucket, key, meta.fileId()));
    }

    /** The candidate with the earliest deadline, removed; null if none. */
    synchronized Candidate poll() {
        return queue.poll();
    }

    synchronized int size() {
        return queue.size();
    }

    synchronized java.util.List<Candidate> snapshot() {
        return java.util.List.copyOf(queue);
    }
}
