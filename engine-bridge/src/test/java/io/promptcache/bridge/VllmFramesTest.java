package io.promptcache.bridge;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.proto.EngineEvent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class VllmFramesTest {

    private static final BridgeSettings SETTINGS = new BridgeSettings("http://10.0.0.5:8000", "llama-3-8b", 4,
            "acme", Optional.of("s1"), Optional.empty());

    @Test
    void shouldDecodeABatchOfEveryEventKindWithIntAndBytesHashes() throws IOException {
        // Given: a sequence start (int hashes), a continuation (bytes hashes, LoRA 7), a removal, a clear; dp rank 1
        byte[] sha = new byte[32];
        sha[0] = 9;
        byte[] payload = VllmFrame.batch()
                .stored(List.of(-5L, 6L), null, IntStream.range(0, 8).toArray(), 4, null, "GPU")
                .stored(List.of(sha), 6L, IntStream.range(8, 12).toArray(), 4, 7L, "GPU")
                .removed(List.of(-5L), null)
                .cleared()
                .encode(1_739_145_600.25, 1);

        // When
        List<EngineEvent> events = VllmFrames.decode(payload, 3, SETTINGS);

        // Then
        assertThat(events).hasSize(4);
        EngineEvent first = events.get(0);
        assertThat(first.getEventId()).isEqualTo(3 * 65536);
        assertThat(first.getTimestampMs()).isEqualTo(1_739_145_600_250L);
        assertThat(first.getBackendId()).isEqualTo("http://10.0.0.5:8000");
        assertThat(first.getModelName()).isEqualTo("llama-3-8b");
        assertThat(first.getBlockSize()).isEqualTo(4);
        assertThat(first.getTenantId()).isEqualTo("acme");
        assertThat(first.getAdditionalSalt()).isEqualTo("s1");
        assertThat(first.getDpRank()).isEqualTo(1);
        assertThat(first.getMedium()).isEqualTo("GPU");
        assertThat(first.getStored().getBlockHashesList()).extracting(h -> h.getU64()).containsExactly(-5L, 6L);
        assertThat(first.getStored().hasParentBlockHash()).isFalse();
        assertThat(first.getStored().getTokenIdsList()).hasSize(8);
        EngineEvent second = events.get(1);
        assertThat(second.getEventId()).isEqualTo(3 * 65536 + 1);
        assertThat(second.getStored().getBlockHashes(0).getRaw().toByteArray()).isEqualTo(sha);
        assertThat(second.getStored().getParentBlockHash().getU64()).isEqualTo(6L);
        assertThat(second.getLoraId()).isEqualTo(7L);
        assertThat(events.get(2).getRemoved().getBlockHashes(0).getU64()).isEqualTo(-5L);
        assertThat(events.get(2).getMedium()).isEmpty();
        assertThat(events.get(3).hasCleared()).isTrue();
    }

    @Test
    void shouldDecodeTheMapEncodedFormOfVllm026AsThePositionalOne() throws IOException {
        // Given: the same events in both forms (the map-encoded one with a field this bridge does not know)
        byte[] sha = new byte[32];
        sha[3] = 7;
        for (Integer dpRank : new Integer[]{2, null}) {
            List<EngineEvent> positional = VllmFrames.decode(frame(VllmFrame.batch(), sha).encode(1_739_145_601.5,
                    dpRank), 4, SETTINGS);
            List<EngineEvent> mapped = VllmFrames.decode(frame(VllmFrame.mapped(), sha).encode(1_739_145_601.5,
                    dpRank), 4, SETTINGS);
            // Then: the same EngineEvents
            assertThat(mapped).hasSize(4).isEqualTo(positional);
            assertThat(mapped.get(1).getStored().getBlockHashes(0).getRaw().toByteArray()).isEqualTo(sha);
            assertThat(mapped.get(1).getLoraId()).isEqualTo(3L);
            assertThat(mapped.get(0).getTimestampMs()).isEqualTo(1_739_145_601_500L);
            assertThat(mapped.get(0).getDpRank()).isEqualTo(dpRank == null ? 0 : dpRank);
            assertThat(mapped.get(2).getMedium()).isEqualTo("CPU");
        }
    }

    @Test
    void shouldDecodeRfc1527EnvelopesWhoseHashesNeedNoTokens() throws IOException {
        // Given: Mooncake RFC #1527 events, map-encoded: the envelope per event (it wins over the bridge's
        // settings), seq_hashes and no token ids, the tag as event_type with RFC names
        org.msgpack.core.MessageBufferPacker out = org.msgpack.core.MessagePack.newDefaultBufferPacker();
        out.packMapHeader(2).packString("events").packArrayHeader(3);
        out.packMapHeader(11).packString("event_type").packString("stored").packString("event_id").packLong(42)
                .packString("tenant_id").packString("t9").packString("medium").packString("cpu")
                .packString("dp_rank").packInt(3).packString("additional_salt").packString("x")
                .packString("lora_name").packString("sql").packString("seq_hashes").packArrayHeader(2).packLong(11)
                .packLong(-12).packString("parent_seq_hash").packLong(10).packString("base_block_idx").packInt(5)
                .packString("block_size").packInt(4);
        out.packMapHeader(3).packString("event_type").packString("removed").packString("event_id").packLong(43)
                .packString("seq_hashes").packArrayHeader(1).packLong(-12);
        out.packMapHeader(1).packString("event_type").packString("cleared");
        out.packString("ts").packDouble(1_739_145_602.0);

        // When
        List<EngineEvent> events = VllmFrames.decode(out.toByteArray(), 7, SETTINGS);

        // Then
        EngineEvent stored = events.get(0);
        assertThat(stored.getEventId()).isEqualTo(42);
        assertThat(stored.getTenantId()).isEqualTo("t9");
        assertThat(stored.getMedium()).isEqualTo("cpu");
        assertThat(stored.getDpRank()).isEqualTo(3);
        assertThat(stored.getAdditionalSalt()).isEqualTo("x");
        assertThat(stored.getLoraName()).isEqualTo("sql");
        assertThat(stored.getHashScheme()).isEqualTo(RollingHashChain.SCHEME);
        assertThat(stored.getStored().getBlockHashesList()).extracting(h -> h.getU64()).containsExactly(11L, -12L);
        assertThat(stored.getStored().getParentBlockHash().getU64()).isEqualTo(10L);
        assertThat(stored.getStored().getBaseBlockIdx()).isEqualTo(5);
        assertThat(stored.getStored().getTokenIdsCount()).isZero();
        assertThat(stored.getBackendId()).isEqualTo("http://10.0.0.5:8000");
        assertThat(events.get(1).getEventId()).isEqualTo(43);
        assertThat(events.get(1).getRemoved().getBlockHashes(0).getU64()).isEqualTo(-12L);
        assertThat(events.get(1).getTenantId()).as("the bridge's tenant when the event names none").isEqualTo("acme");
        assertThat(events.get(2).hasCleared()).isTrue();
        assertThat(events.get(2).getEventId()).as("no event_id: the bridge's").isEqualTo(7 * 65536 + 2);

        // and an engine configured as hashing with RFC #1527's chain marks its vLLM-named block_hashes so
        BridgeSettings rfc = new BridgeSettings("e", "m", 4, "", Optional.empty(), Optional.empty(),
                BridgeSettings.hashScheme("rfc1527"));
        byte[] payload = VllmFrame.batch().stored(List.of(5L), null, new int[0], 4, null, "GPU").encode(1.0, null);
        assertThat(VllmFrames.decode(payload, 1, rfc).get(0).getHashScheme()).isEqualTo(RollingHashChain.SCHEME);
        assertThat(VllmFrames.decode(payload, 1, SETTINGS).get(0).getHashScheme()).isEmpty();
        assertThatThrownBy(() -> BridgeSettings.hashScheme("md5")).hasMessageContaining("rfc1527");
    }

    private static VllmFrame frame(VllmFrame frame, byte[] sha) {
        return frame.stored(List.of(11L, 12L), null, IntStream.range(0, 8).toArray(), 4, null, "GPU")
                .stored(List.of(sha), 12L, IntStream.range(8, 12).toArray(), 4, 3L, "GPU")
                .removed(List.of(11L), "CPU")
                .cleared();
    }

    @Test
    void shouldDecodeABatchWithoutDpRankAndRefuseWhatIsNotVllm() throws IOException {
        byte[] noRank = VllmFrame.batch().cleared().encode(1.0, null);
        assertThat(VllmFrames.decode(noRank, 0, SETTINGS).get(0).hasDpRank()).isFalse();

        byte[] wrongBlockSize = VllmFrame.batch().stored(List.of(1L), null, new int[16], 16, null, null)
                .encode(1.0, null);
        assertThatThrownBy(() -> VllmFrames.decode(wrongBlockSize, 0, SETTINGS)).hasMessageContaining("block_size 16");
        assertThatThrownBy(() -> VllmFrames.decode(new byte[]{(byte) 0x91, 0x01}, 0, SETTINGS))
                .hasMessageContaining("[ts, events");
        assertThatThrownBy(() -> new BridgeSettings("b", "", 16, "", Optional.empty(), Optional.empty()))
                .hasMessageContaining("--model");
    }
}
