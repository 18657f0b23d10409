package io.promptcache.storage.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The locks of multipart uploads, one per upload id (64 stripes: ids of one stripe share a lock), and the
 * completions in progress. An upload's records change under its lock only, so uploads of other ids go on meanwhile;
 * a completion's count changes under its upload's lock too, so a sweep that checks it under that lock sees every
 * completion that started before it.
 */
final class UploadLocks {

    private static final int STRIPES = 64;

    private final Object[] locks = new Object[STRIPES];
    private final Map<String, Integer> completing = new ConcurrentHashMap<>();

    UploadLocks() {
        for (int i = 0; i < STRIPES; i++) {
            locks[i] = new Object();
        }
    }

    /** The lock under which {@code uploadId}'s records change. */
    Object of(String uploadId) {
        return locks[Math.floorMod(uploadId.hashCode(), STRIPES)];
    }

    /** A completion of {@code uploadId} starts (call under its lock). */
    void completionStarted(String uploadId) {
        completing.merge(uploadId, 1, Integer::sum);
    }

    /** A completion of {@code uploadId} ended, however (call under its lock). */
    void completionEnded(String uploadId) {
        completing.computeIfPresent(uploadId, (id, n) -> n == 1 ? null : n - 1);
    }

    /** Whether a completion of {@code uploadId} is in progress (a completing upload is never idle). */
    boolean completing(String uploadId) {
        return completing.containsKey(uploadId);
    }
}
