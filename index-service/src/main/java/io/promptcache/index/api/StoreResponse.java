package io.promptcache.index.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.promptcache.index.store.StoreOutcome;

/**
 * A stored (or already present) object.
 *
 * @param objectId the object
 * @param deduplicated true when a live object already covered the whole prefix and nothing was stored
 * @param node storage node holding it
 * @param blocks complete blocks it covers
 * @param tokens tokens it covers
 * @param bytes object size
 * @param continues the object whose prefix it shares (a continuation), else absent
 * @param sharedBytes bytes shared with {@code continues} (not written again), else absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoreResponse(String objectId, boolean deduplicated, String node, int blocks, int tokens, long bytes,
        String continues, Long sharedBytes) {

    static StoreResponse of(StoreOutcome o) {
        return new StoreResponse(o.objectId(), o.deduplicated(), o.node(), o.blocks(), o.tokens(), o.bytes(),
                o.continues(), o.sharedBytes());
    }
}
