package io.promptcache.index.store;

import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.hash.PrefixChain;
import io.promptcache.schema.proto.BlockLayout;

/**
 * A validated store request: the namespace, the chain of its complete blocks, the layout and what it implies.
 *
 * @param spec namespace
 * @param chain prefix-hash chain (at least one block)
 * @param layout as recorded in the ObjectRecord
 * @param usableBytes {@code usableBytes[k-1]} = bytes holding the first k blocks
 * @param priority eviction priority
 * @param pinned never evicted
 */
public record StorePlan(Namespace spec, PrefixChain chain, BlockLayout layout, long[] usableBytes, int priority,
        boolean pinned) {

    /** The object's size: the bytes of all its blocks. */
    public long totalBytes() {
        return usableBytes[usableBytes.length - 1];
    }

    public int blocks() {
        return chain.blocks();
    }
}
