package io.promptcache.index.store;

/**
 * A stored (or already present) object.
 *
 * @param objectId the object
 * @param deduplicated true when a live object already covered the whole prefix and nothing was stored
 * @param node storage node holding it
 * @param blocks complete blocks it covers
 * @param tokens tokens it covers
 * @param bytes object size
 * @param continues the object whose prefix it shares (a continuation), else null
 * @param sharedBytes bytes shared with {@code continues} (not written again), else null
 */
public record StoreOutcome(String objectId, boolean deduplicated, String node, int blocks, int tokens, long bytes,
        String continues, Long sharedBytes) {
}
