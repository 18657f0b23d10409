package io.promptcache.index.api;

import java.util.List;

/**
 * Commits a reservation after the engine PUT the bytes: the same description as the reservation, plus the node
 * the reservation named.
 *
 * @param tokens token ids (as reserved)
 * @param tokenBytes or the token ids as little-endian int32, base64 (as reserved)
 * @param blockHashes or the engine block hashes (as reserved)
 * @param layout as reserved
 * @param priority as reserved
 * @param pinned as reserved
 * @param node the node id from the reservation
 * @param fromBlock as the reservation answered (a continuation), else absent
 * @param continues as the reservation answered (a continuation), else absent
 * @param uploadId as the reservation answered (a continuation), else absent
 * @param reason as reserved (counted at the commit)
 */
public record CommitRequest(int[] tokens, byte[] tokenBytes, List<String> blockHashes, LayoutInput layout,
        Integer priority,
        Boolean pinned, String node, Integer fromBlock, String continues, String uploadId, String reason) {

    public StoreRequest store() {
        return new StoreRequest(tokens, tokenBytes, blockHashes, layout, priority, pinned, fromBlock, continues,
                reason, null);
    }
}
