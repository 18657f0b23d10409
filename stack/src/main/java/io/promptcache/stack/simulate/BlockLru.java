package io.promptcache.stack.simulate;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The reference model of the Mooncake paper's hit-ratio tables: a cache of individual blocks, least recently used
 * out, capacity counted in blocks. A request hits the longest prefix of its blocks that are all cached; then every
 * block of the request is touched (inserted or refreshed).
 */
final class BlockLru {

    private final long capacity;
    private final LinkedHashMap<Long, Boolean> blocks;

    BlockLru(long capacityBlocks) {
        this.capacity = capacityBlocks;
        this.blocks = new LinkedHashMap<>(16, 0.75f, true) {

            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    /** Serves one request; returns the blocks that hit. */
    int request(long[] blockIds) {
        int matched = 0;
        while (matched < blockIds.length && blocks.containsKey(blockIds[matched])) {
            matched++;
        }
        for (long id : blockIds) {
            blocks.put(id, Boolean.TRUE);
        }
        return matched;
    }
}
