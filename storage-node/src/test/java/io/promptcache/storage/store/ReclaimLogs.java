package io.promptcache.storage.store;

/** Puts entries in a {@link ReclaimLog} as the node's deletions do, for tests outside its package. */
public final class ReclaimLogs {

    private ReclaimLogs() {
    }

    public static void add(ReclaimLog log, String bucket, String key, long atMs) {
        log.add(bucket, key, atMs);
    }
}
