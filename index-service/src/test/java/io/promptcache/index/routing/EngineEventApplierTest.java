package io.promptcache.index.routing;

import java.util.Arrays;
import java.util.Random;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import com.google.protobuf.ByteString;

import io.promptcache.index.routing.EngineEventApplier.Outcome;
import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.proto.AllBlocksCleared;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;

import static org.assertj.core.api.Assertions.assertThat;

class EngineEventApplierTest {

    private static final int BLOCK = 16;
    private static final PoolKey POOL = new PoolKey("llama-3-8b", BLOCK, "", "", "default");
    private static final long NOW = 1_800_000_000_000L;

    private final RoutingTables tables = new RoutingTables();
    private final LoadBoard loads = new LoadBoard(java.time.Duration.ofSeconds(10), System::nanoTime);
    private final EngineEventApplier applier = new EngineEventApplier(tables, loads, 60_000, () -> NOW);
    private final int[] prompt = new Random(3).ints(6 * BLOCK, 0, 32_000).toArray();
    private long eventId;

    @Test
    void shouldMapTheEnginesOwnChainToTheTrackersFromTokensAndParents() {
        // Given: the engine stores the prompt in two events (blocks 0-2, then 3-5 under parent block 2), with its
        // own ids (bytes, as vLLM's sha256 hashing sends them)
        assertThat(applier.apply(stored("e1", null, 0, 3))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(stored("e1", engineId(2), 3, 3))).isEqualTo(Outcome.APPLIED);

        // When: a request for the prompt plus a partial block
        long[] request = RollingHashChain.of(BLOCK, Arrays.copyOf(prompt, prompt.length + 5));

        // Then: all 6 blocks match on e1, each at its depth
        BlockTracker tracker = tables.existing(POOL);
        assertThat(tracker.match("e1", request)).isEqualTo(6);
        assertThat(tracker.depthOf("e1", request[4])).isEqualTo(4);

        // When: the engine evicts its last two blocks
        assertThat(applier.apply(event("e1").setRemoved(BlockRemoved.newBuilder()
                .addBlockHashes(engineId(4)).addBlockHashes(engineId(5))).build())).isEqualTo(Outcome.APPLIED);

        // Then
        assertThat(tracker.match("e1", request)).isEqualTo(4);
    }

    @Test
    void shouldCountWhatItCannotMapAndKeepPoolsAndRanksApart() {
        // Given / When / Then: a continuation whose parent was never seen
        assertThat(applier.apply(stored("e1", engineId(2), 3, 3))).isEqualTo(Outcome.ORPHAN);
        // no token ids
        EngineEvent noTokens = event("e1").setStored(BlockStored.newBuilder().addBlockHashes(engineId(0))).build();
        assertThat(applier.apply(noTokens)).isEqualTo(Outcome.NO_TOKENS);
        // a token count that is not blocks x block size
        EngineEvent ragged = event("e1").setStored(BlockStored.newBuilder().addBlockHashes(engineId(0))
                .addAllTokenIds(IntStream.range(0, 5).boxed().toList())).build();
        assertThat(applier.apply(ragged)).isEqualTo(Outcome.MALFORMED);
        // a medium that is no tier routing knows
        assertThat(applier.apply(stored("e1", null, 0, 3).toBuilder().setMedium("TAPE").build()))
                .isEqualTo(Outcome.OTHER_MEDIUM);
        // hashes of the engine's own scheme without token ids; RFC #1527 hashes without a known parent or depth
        assertThat(applier.apply(rfc("e1", 3, 2, true, false))).isEqualTo(Outcome.ORPHAN);
        // another LoRA is another pool; a dp rank is its own backend
        assertThat(applier.apply(stored("e1", null, 0, 3).toBuilder().setLoraName("sql").build()))
                .isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(stored("e2", null, 0, 2).toBuilder().setDpRank(1).build()))
                .isEqualTo(Outcome.APPLIED);
        assertThat(tables.existing(POOL).sizes()).containsOnlyKeys("e1", "e2/dp1").containsEntry("e1", 0)
                .containsEntry("e2/dp1", 2);
        assertThat(tables.existing(new PoolKey("llama-3-8b", BLOCK, "sql", "", "default")).sizes())
                .containsEntry("e1", 3);
    }

    @Test
    void shouldRouteOnRfc1527HashOnlyEventsAsOnTokenEventsForTheSamePrompts() {
        // Given: e1 reports the prompt with token ids (its own hash scheme), e2 the same blocks as RFC #1527 hashes
        // only, in two events: the second names its parent by hash, a third (blocks 4-5 again) by base_block_idx
        applier.apply(stored("e1", null, 0, 3));
        applier.apply(stored("e1", engineId(2), 3, 3));
        assertThat(applier.apply(rfc("e2", 0, 3, false, false))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(rfc("e2", 3, 3, true, false))).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(rfc("e2", 4, 2, false, true))).isEqualTo(Outcome.APPLIED);
        BlockTracker tracker = tables.existing(POOL);

        // When / Then: every prefix of the prompt, with or without more blocks after it, matches alike on both, and
        // the policy decides alike for a pool of either engine
        RoutingPolicy policy = new RoutingPolicy(0.3, 1.25);
        int[] other = new Random(4).ints(4 * BLOCK, 0, 32_000).toArray();
        for (int blocks = 0; blocks <= 6; blocks++) {
            int[] request = Arrays.copyOf(prompt, blocks * BLOCK + other.length);
            System.arraycopy(other, 0, request, blocks * BLOCK, other.length);
            long[] ids = RollingHashChain.of(BLOCK, request);
            assertThat(tracker.match("e2", ids)).as("prefix of %d blocks", blocks).isEqualTo(tracker.match("e1", ids))
                    .isEqualTo(blocks);
            RoutingPolicy.Decision onTokens = policy.decide(java.util.List.of(new RoutingPolicy.Candidate("x",
                    tracker.match("e1", ids), 1), new RoutingPolicy.Candidate("y", 0, 1)), ids.length);
            RoutingPolicy.Decision onHashes = policy.decide(java.util.List.of(new RoutingPolicy.Candidate("x",
                    tracker.match("e2", ids), 1), new RoutingPolicy.Candidate("y", 0, 1)), ids.length);
            assertThat(onHashes).isEqualTo(onTokens);
        }

        // Then: an eviction by hash applies as well
        assertThat(applier.apply(event("e2").setHashScheme(RollingHashChain.SCHEME).setRemoved(BlockRemoved
                .newBuilder().addBlockHashes(rfcHash(5))).build())).isEqualTo(Outcome.APPLIED);
        assertThat(tracker.match("e2", RollingHashChain.of(BLOCK, prompt))).isEqualTo(5);
    }

    @Test
    void shouldKeepTheCpuAndStorageTiersInTrackersOfTheirOwn() {
        // Given: e1's GPU holds 2 blocks, its CPU tier 6 (vLLM "CPU"), its storage tier 4 (vLLM 0.27 "STORAGE")
        applier.apply(stored("e1", null, 0, 2));
        assertThat(applier.apply(stored("e1", null, 0, 6).toBuilder().setMedium("CPU").build()))
                .isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(rfc("e1", 0, 4, false, false).toBuilder().setMedium("STORAGE").build()))
                .isEqualTo(Outcome.APPLIED);

        // Then
        long[] ids = RollingHashChain.of(BLOCK, prompt);
        assertThat(tables.existing(POOL).match("e1", ids)).isEqualTo(2);
        assertThat(tables.existing(POOL, Tier.CPU).match("e1", ids)).isEqualTo(6);
        assertThat(tables.existing(POOL, Tier.STORAGE).match("e1", ids)).isEqualTo(4);
        // a router's decision is about the GPU only
        assertThat(applier.apply(decision("e1", ids, NOW).toBuilder().setMedium("cpu").build()))
                .isEqualTo(Outcome.OTHER_MEDIUM);
    }

    @Test
    void shouldSkipStaleEventsAndResetOnRestartOrClear() {
        // Given: event 10 applied; a duplicate of it
        eventId = 10;
        applier.apply(stored("e1", null, 0, 3));
        EngineEvent duplicate = stored("e1", null, 0, 3).toBuilder().setEventId(10).build();

        // When / Then
        assertThat(applier.apply(duplicate)).isEqualTo(Outcome.STALE);
        eventId = 0;
        assertThat(applier.apply(stored("e1", null, 0, 1))).as("ids start over").isEqualTo(
                Outcome.APPLIED_AFTER_RESTART);
        assertThat(tables.existing(POOL).sizes()).containsEntry("e1", 1);
        eventId = 50;
        assertThat(applier.apply(event("e1").setCleared(AllBlocksCleared.getDefaultInstance()).build()))
                .isEqualTo(Outcome.APPLIED_AFTER_GAP);
        assertThat(tables.existing(POOL).sizes()).containsEntry("e1", 0);
    }

    @Test
    void shouldApplyRecentDecisionsAsPredictionsAndLoadButSkipOldOnesReadBack() {
        // Given: a decision of 10 s ago and one of 2 minutes ago (a replica replaying the log after a restart)
        long[] chain = RollingHashChain.of(BLOCK, prompt);
        EngineEvent recent = decision("e1", chain, NOW - 10_000);
        EngineEvent old = decision("e2", chain, NOW - 120_000);

        // When / Then
        assertThat(applier.apply(recent)).isEqualTo(Outcome.APPLIED);
        assertThat(applier.apply(old)).isEqualTo(Outcome.STALE);
        assertThat(tables.existing(POOL).match("e1", chain)).isEqualTo(6);
        assertThat(tables.existing(POOL).match("e2", chain)).isZero();
        assertThat(loads.load("e1")).as("10 s old, half-life 10 s").isBetween(0.45, 0.5);
        assertThat(loads.load("e2")).isZero();
    }

    private static EngineEvent decision(String backend, long[] chain, long at) {
        io.promptcache.schema.proto.RoutePredicted.Builder predicted = io.promptcache.schema.proto.RoutePredicted
                .newBuilder().setDecidedBy("replica-x");
        for (long id : chain) {
            predicted.addBlockIds(id);
        }
        return EngineEvent.newBuilder().setSchemaVersion(1).setTimestampMs(at).setBackendId(backend)
                .setModelName("llama-3-8b").setBlockSize(BLOCK).setMedium("gpu").setTenantId("default")
                .setPredicted(predicted).build();
    }

    private EngineEvent stored(String backend, EngineBlockHash parent, int first, int count) {
        BlockStored.Builder stored = BlockStored.newBuilder();
        for (int i = first; i < first + count; i++) {
            stored.addBlockHashes(engineId(i));
        }
        for (int t = first * BLOCK; t < (first + count) * BLOCK; t++) {
            stored.addTokenIds(prompt[t]);
        }
        if (parent != null) {
            stored.setParentBlockHash(parent);
        }
        return event(backend).setStored(stored).build();
    }

    /**
     * Blocks {@code first}.. of the prompt as an RFC #1527 event: their rolling hashes, no token ids; the parent
     * named by its hash, or the depth given as {@code base_block_idx}.
     */
    private EngineEvent rfc(String backend, int first, int count, boolean parent, boolean baseIndex) {
        BlockStored.Builder stored = BlockStored.newBuilder();
        for (int i = first; i < first + count; i++) {
            stored.addBlockHashes(rfcHash(i));
        }
        if (parent) {
            stored.setParentBlockHash(rfcHash(first - 1));
        }
        if (baseIndex) {
            stored.setBaseBlockIdx(first);
        }
        return event(backend).setHashScheme(RollingHashChain.SCHEME).setStored(stored).build();
    }

    private EngineBlockHash rfcHash(int block) {
        return EngineBlockHash.newBuilder().setU64(RollingHashChain.of(BLOCK, prompt)[block]).build();
    }

    private EngineEvent.Builder event(String backend) {
        return EngineEvent.newBuilder().setSchemaVersion(1).setEventId(eventId++).setTimestampMs(NOW)
                .setBackendId(backend).setModelName("llama-3-8b").setBlockSize(BLOCK).setMedium("GPU");
    }

    private static EngineBlockHash engineId(int block) {
        byte[] id = new byte[32];
        id[0] = (byte) block;
        id[31] = 7;
        return EngineBlockHash.newBuilder().setRaw(ByteString.copyFrom(id)).build();
    }
}
