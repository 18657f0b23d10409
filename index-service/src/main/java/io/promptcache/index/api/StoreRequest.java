package io.promptcache.index.api;

import java.util.List;

/**
 * What a store (or reservation) names: the prefix (tokens or engine block hashes), how the bytes split into
 * blocks, and how much the object is worth keeping. In the one-shot form this is the JSON head of the body.
 *
 * @param tokens token ids (only complete blocks are stored)
 * @param tokenBytes or the token ids as little-endian int32, base64 in JSON (cheaper to read for long prompts)
 * @param blockHashes or the engine's block-hash chain, hex, one per block
 * @param layout bytes per block or block end offsets
 * @param priority eviction priority: lower goes first (default 0)
 * @param pinned never evicted by budgets or TTL (default false)
 * @param fromBlock the body carries only the blocks from this one on (one-shot form; default 0: all): the blocks
 *        before it are the prefix the engine's lookup hit, shared from a live object on its node. When no live
 *        object holds them any more the store answers 409 ContinuationUnavailable: send the whole prompt
 * @param continues the object the engine's lookup hit (informational: any live object holding those blocks
 *        holds the same bytes, and the index uses the one it finds)
 * @param reason why the engine saves it ({@code cold}, {@code continued}, {@code finish}, {@code evict},
 *        {@code shutdown}; absent: unspecified): counted by the store metrics, nothing else
 * @param tokensAfterHead or, in the one-shot framed body only, how many token ids follow the JSON head as
 *        little-endian int32 (before the object's bytes): the cheapest form, no JSON or base64 on either side
 */
public record StoreRequest(int[] tokens, byte[] tokenBytes, List<String> blockHashes, LayoutInput layout,
        Integer priority,
        Boolean pinned, Integer fromBlock, String continues, String reason, Integer tokensAfterHead) {

    /** This request with the token ids read after a framed body's head, as raw little-endian int32. */
    StoreRequest withTokensRead(byte[] littleEndian) {
        return new StoreRequest(tokens, littleEndian, blockHashes, layout, priority, pinned, fromBlock, continues,
                reason, null);
    }

    public PrefixInput prefix() {
        return new PrefixInput(tokens, tokenBytes, blockHashes);
    }
}
