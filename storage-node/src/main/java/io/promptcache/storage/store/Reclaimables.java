package io.promptcache.storage.store;

import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Objects the cluster's GC has already evicted (tombstoned: no lookup returns them) and will delete at the end of
 * their grace window, which the GC marks with the user metadata {@value #MARKER} = the end of that window (ms since
 * the epoch), by a CopyObject of the object onto itself with {@code REPLACE}. When a write needs room the node deletes
 * them early, the earliest deadline first, instead of refusing the write: a cache admits a store by making room.
 * An object leaves the set when it is deleted or replaced, so the set holds only marked objects that still exist.
 */
final class Reclaimables {

    /** User metadata key (without {@code x-amz-meta-}) that marks an object reclaimable. */
    static final String MARKER = "promptcache-reclaimable-after";

    /** One marked object version. */
    record Candidate(long deleteAfterMs, String bucket, String key, String versionId) {
    }

    private final TreeSet<Candidate> byDeadline = new TreeSet<>(Comparator.comparingLong(Candidate::deleteAfterMs)
            .thenComparing(Candidate::bucket).thenComparing(Candidate::key).thenComparing(Candidate::versionId));
    private final Map<String, Candidate> byObject = new HashMap<>();

    /** {@code bucket/key} is now {@code meta}: remembered if it carries the marker, forgotten otherwise. */
    synchronized void update(String bucket, String key, ObjectMeta meta) {
        forget(bucket, key);
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
        Candidate candidate = new Candidate(deleteAfter, bucket, key, meta.fileId());
        byDeadline.add(candidate);
        byObject.put(id(bucket, key), candidate);
    }

    /** {@code bucket/key} was deleted. */
    synchronized void forget(String bucket, String key) {
        Candidate previous = byObject.remove(id(bucket, key));
        if (previous != null) {
            byDeadline.remove(previous);
        }
    }

    /** The candidate with the earliest deadline, removed; null if none. */
    synchronized Candidate poll() {
        Candidate first = byDeadline.pollFirst();
        if (first != null) {
            byObject.remove(id(first.bucket(), first.key()));
        }
        return first;
    }

    synchronized List<Candidate> snapshot() {
        return List.copyOf(byDeadline);
    }

    private static String id(String bucket, String key) {
        return bucket + '\0' + key;
    }
}
