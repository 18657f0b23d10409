package io.promptcache.index.store;

import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.key.PrefixChain;
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
 * @param fromBlock the engine sends the bytes of the blocks from this one on (0: all of them); the blocks before it
 *        must be shared from a live object (a continuation)
 * @param owner who stores it (the caller's {@link io.promptcache.index.tenancy.Caller#principal()}), or null in open
 *        mode: then the replica that stores it owns it
 * @param reason why the engine saves it (counted, nothing else)
 */
public record StorePlan(Namespace spec, PrefixChain chain, BlockLayout layout, long[] usableBytes, int priority,
        boolean pinned, int fromBlock, String owner, SaveReason reason) {

    /** The object's size: the bytes of all its blocks. */
    public long totalBytes() {
        return usableBytes[usableBytes.length - 1];
    }

    /** Bytes of the first {@code blocks} blocks (0 for none). */
    public long bytesOf(int blocks) {
        return blocks == 0 ? 0 : usableBytes[blocks - 1];
    }

    /** Bytes the engine sends: those of the blocks from {@code fromBlock} on. */
    public long sentBytes() {
        return totalBytes() - bytesOf(fromBlock);
    }

    public int blocks() {
        return chain.blocks();
    }
}
