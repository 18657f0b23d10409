package io.promptcache.index.api;

import java.util.List;

/**
 * What a store (or reservation) names: the prefix (tokens or engine block hashes), how the bytes split into
 * blocks, and how much the object is worth keeping. In the one-shot form this is the JSON head of the body.
 *
 * @param tokens token ids (only complete blocks are stored)
 * @param blockHashes or the engine's block-hash chain, hex, one per block
 * @param layout bytes per block or block end offsets
 * @param priority eviction priority: lower goes first (default 0)
 * @param pinned never evicted by budgets or TTL (default false)
 */
public record StoreRequest(int[] tokens, List<String> blockHashes, LayoutInput layout, Integer priority,
        Boolean pinned) {

    public PrefixInput prefix() {
        return new PrefixInput(tokens, blockHashes);
    }
}
