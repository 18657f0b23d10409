package io.promptcache.index.lookup;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.schema.key.PrefixChain;

/** The longest live prefix of a chain in this replica's stores: what a lookup answers and a store deduplicates by. */
@ApplicationScoped
public class PrefixMatcher {

    private final PrefixIndex stores;
    private final LongestPrefixSearch search;

    PrefixMatcher(PrefixIndex stores, CollisionReport collisions) {
        this.stores = stores;
        this.search = new LongestPrefixSearch(collisions);
    }

    /** The longest live prefix of {@code chain} (a prefix with at least one block, or a miss). */
    public PrefixMatch longest(PrefixChain chain) {
        return search.search(chain, stores);
    }
}
