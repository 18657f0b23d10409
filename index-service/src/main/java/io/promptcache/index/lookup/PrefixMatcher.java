package io.promptcache.index.lookup;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.schema.key.PrefixChain;

/** The longest live prefix of a chain in this replica's stores: what a lookup answers and a store deduplicates by. */
@ApplicationScoped
public class PrefixMatcher {

    private final PrefixIndex stores;
    private final LongestPrefixSearch search;
    private final ChainMemo memo;

    PrefixMatcher(PrefixIndex stores, CollisionReport collisions, ChainMemo memo) {
        this.stores = stores;
        this.search = new LongestPrefixSearch(collisions);
        this.memo = memo;
    }

    /**
     * The longest live prefix of {@code chain} (a prefix with at least one block, or a miss); the chain first takes
     * the hashes it shares with a recent request's ({@link ChainMemo}).
     */
    public PrefixMatch longest(PrefixChain chain) {
        memo.reuse(chain);
        return search.search(chain, stores);
    }
}
