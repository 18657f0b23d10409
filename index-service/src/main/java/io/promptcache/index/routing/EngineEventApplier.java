package io.promptcache.index.routing;

import java.util.function.LongSupplier;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;

/**
 * Turns one {@link EngineEvent} into changes of the tracker of its pool.
 *
 * <p>
 * Engines hash blocks their own way (vLLM: Python {@code hash} or SHA-256 of its own chain; RFC #1527: XXH3-64),
 * so the tracker never uses their ids to match requests. A BlockStored carries the blocks' token ids and the
 * engine id of the block before them: the tracker continues its own chain (XXH3-64 rolling, {@code
 * RollingHashChain}) from its id of that parent block, and remembers engine id -> its id, per backend, for later
 * BlockRemoved events. So: a sequence start (no parent) is always mappable; a continuation is mappable when the
 * parent's BlockStored was seen (else {@link Outcome#ORPHAN}: the tracker cannot know the prefix); an event
 * without token ids is not ({@link Outcome#NO_TOKENS}). Engine ids given as bytes are folded to 64 bits.
 *
 * <p>
 * Events whose block hashes are RFC #1527's chain ({@code hash_scheme} {@link RollingHashChain#SCHEME}: Mooncake's
 * envelope, Dynamo's and SGLang's indexers) need no token ids: their hashes are the tracker's own ids. The block
 * before them is then known by its id alone (the parent hash), or by {@code base_block_idx}.
 *
 * <p>
 * Each {@link Tier} has its own trackers: GPU ({@code medium} "gpu", or empty as older vLLM sends), CPU and
 * storage (vLLM's "CPU" and "STORAGE" offload tiers); a medium that is none of these is {@link Outcome#OTHER_MEDIUM}.
 */
public final class EngineEventApplier {

    private static final Hasher64 FOLD = Hashing.xxh3_64();

    /** What happened to one event. */
    public enum Outcome {
        APPLIED,
        APPLIED_AFTER_GAP,
        APPLIED_AFTER_RESTART,
        STALE,
        ORPHAN,
        NO_TOKENS,
        MALFORMED,
        OTHER_MEDIUM
    }

    private final RoutingTables tables;
    private final LoadBoard loads;
    private final long predictionTtlMs;
    private final LongSupplier wallClock;

    /**
     * @param predictionTtlMs a decision read back older than this (a replica replaying the log after a restart) is
     *        no prediction any more: skipped as {@link Outcome#STALE}
     * @param wallClock ms, to age the decisions read back (their {@code timestamp_ms} is the deciding replica's)
     */
    public EngineEventApplier(RoutingTables tables, LoadBoard loads, long predictionTtlMs, LongSupplier wallClock) {
        this.tables = tables;
        this.loads = loads;
        this.predictionTtlMs = predictionTtlMs;
        this.wallClock = wallClock;
    }

    /** The backend an event is about: its backend id, and its data-parallel rank when it has one. */
    public static String backendOf(EngineEvent event) {
        return event.hasDpRank() ? event.getBackendId() + "/dp" + event.getDpRank() : event.getBackendId();
    }

    public Outcome apply(EngineEvent event) {
        if (event.getBackendId().isEmpty() || event.getBlockSize() < 1 || event.getModelName().isEmpty()) {
            return Outcome.MALFORMED;
        }
        Tier tier = Tier.of(event.getMedium());
        if (tier == null || tier != Tier.GPU && event.getKindCase() == EngineEvent.KindCase.PREDICTED) {
            return Outcome.OTHER_MEDIUM;
        }
        BlockTracker tracker = tables.tracker(PoolKey.of(event), tier);
        String backend = backendOf(event);
        if (event.getKindCase() == EngineEvent.KindCase.PREDICTED) {
            // a router's decision, not one of the engine's events: outside the engine's id order
            long ageMs = wallClock.getAsLong() - event.getTimestampMs();
            if (ageMs > predictionTtlMs) {
                return Outcome.STALE;
            }
            tracker.predicted(backend, event.getPredicted().getBlockIdsList().stream().mapToLong(Long::longValue)
                    .toArray());
            loads.routed(backend, ageMs * 1_000_000);
            return Outcome.APPLIED;
        }
        EventOrder.Verdict verdict = tracker.order(backend, event.getEventId());
        if (verdict == EventOrder.Verdict.STALE) {
            return Outcome.STALE;
        }
        Outcome outcome = switch (event.getKindCase()) {
            case STORED -> RollingHashChain.SCHEME.equals(event.getHashScheme())
                    && event.getStored().getTokenIdsCount() == 0
                            ? chained(tracker, backend, event.getStored())
                            : stored(tracker, backend, event.getStored(), event.getBlockSize());
            case REMOVED -> {
                tracker.removed(backend, fold(event.getRemoved().getBlockHashesList()));
                yield Outcome.APPLIED;
            }
            case CLEARED -> {
                tracker.cleared(backend);
                yield Outcome.APPLIED;
            }
            case PREDICTED, KIND_NOT_SET -> Outcome.MALFORMED;
        };
        if (outcome != Outcome.APPLIED) {
            return outcome;
        }
        return switch (verdict) {
            case GAP -> Outcome.APPLIED_AFTER_GAP;
            case RESTART -> Outcome.APPLIED_AFTER_RESTART;
            default -> Outcome.APPLIED;
        };
    }

    private static Outcome stored(BlockTracker tracker, String backend, BlockStored stored, int blockSize) {
        int blocks = stored.getBlockHashesCount();
        if (stored.getTokenIdsCount() == 0) {
            return Outcome.NO_TOKENS;
        }
        if (stored.getTokenIdsCount() != blocks * blockSize) {
            return Outcome.MALFORMED;
        }
        int[] tokens = new int[stored.getTokenIdsCount()];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = stored.getTokenIds(i);
        }
        long[] ids;
        int depth;
        if (stored.hasParentBlockHash()) {
            long parent = tracker.idOf(backend, fold(stored.getParentBlockHash()));
            if (parent == LongStampMap.ABSENT) {
                return Outcome.ORPHAN;
            }
            ids = RollingHashChain.continued(parent, blockSize, tokens);
            depth = tracker.depthOf(backend, parent) + 1;
        } else {
            ids = RollingHashChain.of(blockSize, tokens);
            depth = 0;
        }
        if (stored.hasBaseBlockIdx()) {
            depth = stored.getBaseBlockIdx();
        }
        tracker.stored(backend, ids, fold(stored.getBlockHashesList()), depth);
        return Outcome.APPLIED;
    }

    /** A BlockStored of RFC #1527 hashes without tokens: the hashes are the tracker's ids. */
    private static Outcome chained(BlockTracker tracker, String backend, BlockStored stored) {
        long[] ids = fold(stored.getBlockHashesList());
        if (ids.length == 0) {
            return Outcome.MALFORMED;
        }
        int depth;
        if (stored.hasBaseBlockIdx()) {
            depth = stored.getBaseBlockIdx();
        } else if (!stored.hasParentBlockHash()) {
            depth = 0;
        } else {
            int parentDepth = tracker.depthOf(backend, fold(stored.getParentBlockHash()));
            if (parentDepth < 0) {
                return Outcome.ORPHAN;
            }
            depth = parentDepth + 1;
        }
        tracker.stored(backend, ids, ids, depth);
        return Outcome.APPLIED;
    }

    private static long[] fold(java.util.List<EngineBlockHash> hashes) {
        long[] out = new long[hashes.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = fold(hashes.get(i));
        }
        return out;
    }

    /** An engine block id as 64 bits: u64 as is, bytes by XXH3-64. */
    static long fold(EngineBlockHash hash) {
        return hash.hasRaw() ? FOLD.hashBytesToLong(hash.getRaw().toByteArray()) : hash.getU64();
    }
}
