package io.promptcache.index.lookup;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;

/**
 * The prefix-hash chains of recent requests, so that a prompt sent again (the store after its lookup, the next turn of
 * a conversation, another question on the same long document) takes the hashes of the blocks it shares with one of
 * them instead of hashing them again: at small block sizes hashing is most of a long prompt's lookup
 * (docs/architecture.md, "Chain memo"). Chains are found by their first key (namespace and first block), at most
 * {@link #PER_FIRST_KEY} per first key, the most recent first; the least recently used first keys go when the chains
 * hold more than {@code promptcache.index.chain-memo-bytes} (a chain larger than half of it is not kept). Tokens are
 * compared exactly and only hashes a chain has computed are taken (under its lock), so a chain holds what hashing its
 * own tokens would give.
 */
@ApplicationScoped
public class ChainMemo {

    /** Chains kept per first key: a shared system prompt starts many prompts. */
    static final int PER_FIRST_KEY = 4;

    private final long budget;
    private final LinkedHashMap<PrefixKey, ArrayDeque<PrefixChain>> chains = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;
    private final Counter reused;
    private final Counter unmatched;
    private final Counter adoptedBlocks;

    @Inject
    ChainMemo(IndexConfig config, MeterRegistry registry) {
        this(config.chainMemoBytes(), registry);
    }

    ChainMemo(long budget, MeterRegistry registry) {
        this.budget = budget;
        this.reused = Counter.builder("promptcache.lookup.chain.memo").tag("outcome", "reused")
                .description("Prefix chains that took hashes from a recent request's chain").register(registry);
        this.unmatched = Counter.builder("promptcache.lookup.chain.memo").tag("outcome", "unmatched")
                .description("Prefix chains that found no recent chain sharing their first block").register(registry);
        this.adoptedBlocks = Counter.builder("promptcache.lookup.chain.memo.blocks")
                .description("Block hashes taken from recent chains instead of hashed").register(registry);
        Gauge.builder("promptcache.lookup.chain.memo.bytes", this, ChainMemo::bytes)
                .description("Bytes held by the chain memo (hashes and token arrays)").register(registry);
    }

    /**
     * Gives {@code chain} (new, not yet shared with other threads) the hashes it shares with the closest recent chain,
     * then keeps it for the next requests; returns how many block hashes it took.
     */
    public int reuse(PrefixChain chain) {
        long size = chain.retainedBytes();
        if (budget == 0 || chain.blocks() == 0 || size > budget / 2) {
            return 0;
        }
        PrefixKey first = chain.key(1);
        List<PrefixChain> candidates;
        synchronized (this) {
            ArrayDeque<PrefixChain> group = chains.get(first);
            candidates = group == null ? List.of() : new ArrayList<>(group);
        }
        // tokens compared outside the lock: candidates are never changed but by hashing more of them
        PrefixChain best = null;
        int bestBlocks = 0;
        List<PrefixChain> superseded = new ArrayList<>();
        for (PrefixChain candidate : candidates) {
            if (candidate == chain) {
                return 0; // kept already (a store matches its chain twice)
            }
            int common = chain.commonBlocks(candidate);
            if (common == candidate.blocks()) {
                superseded.add(candidate); // a prefix of this chain: whatever it shares with a prompt, this does
            }
            if (common > bestBlocks) {
                best = candidate;
                bestBlocks = common;
            }
        }
        int taken = best == null ? 0 : chain.adopt(best, bestBlocks);
        (taken > 0 ? reused : unmatched).increment();
        adoptedBlocks.increment(taken);
        remember(first, chain, size, superseded);
        return taken;
    }

    private synchronized void remember(PrefixKey first, PrefixChain chain, long size, List<PrefixChain> superseded) {
        ArrayDeque<PrefixChain> group = chains.computeIfAbsent(first, k -> new ArrayDeque<>());
        for (PrefixChain old : superseded) {
            if (group.remove(old)) {
                bytes -= old.retainedBytes();
            }
        }
        group.addFirst(chain);
        bytes += size;
        while (group.size() > PER_FIRST_KEY) {
            bytes -= group.removeLast().retainedBytes();
        }
        // the least recently used first keys go first; the one just used is the newest (access order), so it is
        // reached last, and then loses its oldest chains
        Iterator<Map.Entry<PrefixKey, ArrayDeque<PrefixChain>>> eldest = chains.entrySet().iterator();
        while (bytes > budget && eldest.hasNext()) {
            ArrayDeque<PrefixChain> oldest = eldest.next().getValue();
            if (oldest == group) {
                while (bytes > budget && group.size() > 1) {
                    bytes -= group.removeLast().retainedBytes();
                }
                break;
            }
            for (PrefixChain old : oldest) {
                bytes -= old.retainedBytes();
            }
            eldest.remove();
        }
    }

    synchronized long bytes() {
        return bytes;
    }
}
