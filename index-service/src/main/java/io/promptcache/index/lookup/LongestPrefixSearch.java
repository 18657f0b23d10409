package io.promptcache.index.lookup;

import java.util.HashMap;
import java.util.Map;

import io.promptcache.schema.hash.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The longest usable prefix of a request, by binary search over its prefix-hash chain (seed 001 §7.3): O(log n)
 * probes of the PrefixMap, each confirming that the entry covers exactly that many blocks and that its object is
 * LIVE. The search assumes usable prefixes are contiguous from block 1 (a store advertises every prefix it covers,
 * in one transaction); where that does not hold it may return a shorter match than the longest (see the module
 * README, "When lookup returns a shorter match"). Thread-safe (stateless).
 */
public final class LongestPrefixSearch {

    /** Told about an entry whose block count disagrees with its key's position: a hash collision or a bug. */
    @FunctionalInterface
    public interface CollisionListener {

        void collision(PrefixKey key, int requestedBlocks, PrefixEntry entry);
    }

    private final CollisionListener collisions;

    public LongestPrefixSearch(CollisionListener collisions) {
        this.collisions = collisions;
    }

    public PrefixMatch search(PrefixChain chain, PrefixIndex index) {
        Probe probe = new Probe(chain, index);
        int lo = 0;
        PrefixEntry best = null;
        int hi = chain.blocks();
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            PrefixEntry entry = probe.usable(mid);
            if (entry != null) {
                lo = mid;
                best = entry;
            } else {
                hi = mid - 1;
            }
        }
        return new PrefixMatch(lo, best, probe.probes);
    }

    /** Reference: every prefix from the longest down, the first usable one (n probes at worst). For tests and docs. */
    public PrefixMatch linearSearch(PrefixChain chain, PrefixIndex index) {
        Probe probe = new Probe(chain, index);
        for (int i = chain.blocks(); i > 0; i--) {
            PrefixEntry entry = probe.usable(i);
            if (entry != null) {
                return new PrefixMatch(i, entry, probe.probes);
            }
        }
        return new PrefixMatch(0, null, probe.probes);
    }

    /** One search's reads; liveness is looked up once per object. */
    private final class Probe {

        private final PrefixChain chain;
        private final PrefixIndex index;
        private final Map<String, Boolean> live = new HashMap<>(4);
        private int probes;

        Probe(PrefixChain chain, PrefixIndex index) {
            this.chain = chain;
            this.index = index;
        }

        /** The entry of the first {@code blocks} blocks if it can be served, else null. */
        PrefixEntry usable(int blocks) {
            PrefixKey key = chain.key(blocks);
            probes++;
            PrefixEntry entry = index.prefix(key);
            if (entry == null) {
                return null;
            }
            if (entry.getBlocks() != blocks) {
                collisions.collision(key, blocks, entry);
                return null;
            }
            return live.computeIfAbsent(entry.getObjectId(), index::isLive) ? entry : null;
        }
    }
}
