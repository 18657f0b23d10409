package io.promptcache.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

import com.google.protobuf.ByteString;

import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.proto.AllBlocksCleared;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;

/**
 * Decodes the payload frame of vLLM's KV-event publisher: msgpack of {@code KVEventBatch} as msgspec encodes it, in
 * either form vLLM has sent. Positional ({@code array_like}, tagged, trailing defaults omitted):
 * {@code [ts, [event, ...], data_parallel_rank?]}, each event
 * {@code ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium]},
 * {@code ["BlockRemoved", block_hashes, medium]} or {@code ["AllBlocksCleared"]}. Map-encoded (vLLM 0.26+): the same
 * fields by name, {@code {"ts", "events", "data_parallel_rank"}} and events {@code {"type": "BlockStored",
 * "block_hashes": ..}}; fields it does not know are skipped. A block hash is an int (older vLLM: Python {@code hash})
 * or bytes (sha256-based). Event ids: {@code seq x 65536 + index in the batch}, so they
 * grow with vLLM's per-publisher sequence number and start over at 0 when the engine restarts (which the router
 * reads as a restart).
 *
 * <p>
 * Map-encoded events may also carry Mooncake RFC #1527's envelope, which then wins over the bridge's settings:
 * {@code event_id}, {@code tenant_id}, {@code medium}, {@code dp_rank}, {@code additional_salt}, {@code lora_name},
 * {@code base_block_idx}; the tag as {@code type} or {@code event_type} ({@code stored}, {@code removed},
 * {@code cleared} as well as vLLM's names); and {@code seq_hashes} / {@code parent_seq_hash}: the blocks' rolling
 * XXH3-64 hashes, which the router uses as they are, so such events need no token ids ({@code hash_scheme}
 * {@link RollingHashChain#SCHEME}; {@code --hash-scheme rfc1527} says the same of an engine's {@code block_hashes}).
 */
public final class VllmFrames {

    private VllmFrames() {
    }

    /** The fields of each event type in vLLM's positional order (after the tag). */
    private static final Map<String, List<String>> FIELDS = Map.of(
            "BlockStored", List.of("block_hashes", "parent_block_hash", "token_ids", "block_size", "lora_id",
                    "medium"),
            "BlockRemoved", List.of("block_hashes", "medium"),
            "AllBlocksCleared", List.of());

    /** RFC #1527's names of the event types. */
    private static final Map<String, String> TAGS = Map.of("stored", "BlockStored", "removed", "BlockRemoved",
            "cleared", "AllBlocksCleared", "all_blocks_cleared", "AllBlocksCleared");

    /** Fields a map-encoded event may carry besides its type's: RFC #1527's envelope and names. */
    private static final Set<String> ENVELOPE = Set.of("event_id", "tenant_id", "medium", "dp_rank", "additional_salt",
            "lora_name", "base_block_idx", "seq_hashes", "parent_seq_hash");

    /** The EngineEvents of one batch with sequence number {@code seq}. */
    public static List<EngineEvent> decode(byte[] payload, long seq, BridgeSettings settings) throws IOException {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
            Double ts = null;
            Long dpRank = null;
            List<Parsed> events = null;
            if (in.getNextFormat().getValueType() == ValueType.MAP) {
                // map-encoded (vLLM 0.26+): {"ts": .., "events": [..], "data_parallel_rank": ..}, any order
                int entries = in.unpackMapHeader();
                for (int i = 0; i < entries; i++) {
                    switch (in.unpackString()) {
                        case "ts" -> ts = number(in);
                        case "events" -> events = events(in, settings);
                        case "data_parallel_rank" -> dpRank = nil(in) ? null : in.unpackLong();
                        default -> in.skipValue();
                    }
                }
            } else {
                int fields = in.unpackArrayHeader();
                if (fields < 2) {
                    throw new IOException("an event batch is [ts, events, dp_rank?]; got " + fields + " fields");
                }
                ts = number(in);
                events = events(in, settings);
                if (fields > 2 && !nil(in)) {
                    dpRank = in.unpackLong();
                }
                skip(in, fields - 3);
            }
            if (ts == null || events == null) {
                throw new IOException("an event batch needs ts and events");
            }
            List<EngineEvent> out = new ArrayList<>(events.size());
            for (int i = 0; i < events.size(); i++) {
                Parsed parsed = events.get(i);
                EngineEvent.Builder e = parsed.event().setSchemaVersion(1)
                        .setEventId(parsed.eventId() != null ? parsed.eventId() : seq * 65536 + i)
                        .setTimestampMs((long) (ts * 1000));
                if (dpRank != null && !e.hasDpRank()) {
                    e.setDpRank(dpRank.intValue());
                }
                out.add(e.build());
            }
            return out;
        }
    }

    private static double number(MessageUnpacker in) throws IOException {
        return in.getNextFormat().getValueType() == ValueType.FLOAT ? in.unpackDouble() : in.unpackLong();
    }

    /** One event, its envelope from the bridge's settings unless it names its own; its own event id, if any. */
    private record Parsed(EngineEvent.Builder event, Long eventId) {
    }

    private static List<Parsed> events(MessageUnpacker in, BridgeSettings settings) throws IOException {
        int count = in.unpackArrayHeader();
        List<Parsed> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            events.add(event(in, settings));
        }
        return events;
    }

    /**
     * One event, positional ({@code ["BlockStored", hashes, ...]}: msgspec {@code array_like}) or map-encoded
     * ({@code {"type": "BlockStored", "block_hashes": ..}}: msgspec writes the tag first); fields this bridge does not
     * know (newer vLLM's {@code locality}, {@code lora_name}, ...) are skipped.
     */
    private static Parsed event(MessageUnpacker in, BridgeSettings settings) throws IOException {
        boolean mapped = in.getNextFormat().getValueType() == ValueType.MAP;
        int fields = mapped ? in.unpackMapHeader() : in.unpackArrayHeader();
        if (mapped) {
            String key = in.unpackString();
            if (!"type".equals(key) && !"event_type".equals(key)) {
                throw new IOException("a map-encoded KV event starts with its \"type\" (or RFC #1527's "
                        + "\"event_type\"); got \"" + key + "\"");
            }
        }
        String named = in.unpackString();
        String tag = mapped ? TAGS.getOrDefault(named, named) : named;
        List<String> names = FIELDS.get(tag);
        if (names == null) {
            throw new IOException("unknown KV event type " + named);
        }
        EngineEvent.Builder e = EngineEvent.newBuilder().setBackendId(settings.backendId())
                .setModelName(settings.model()).setBlockSize(settings.blockSize()).setTenantId(settings.tenant());
        settings.salt().ifPresent(e::setAdditionalSalt);
        settings.loraName().ifPresent(e::setLoraName);
        settings.hashScheme().ifPresent(e::setHashScheme);
        BlockStored.Builder stored = BlockStored.newBuilder();
        BlockRemoved.Builder removed = BlockRemoved.newBuilder();
        Long eventId = null;
        for (int i = 1; i < fields; i++) {
            String name = mapped ? in.unpackString() : i - 1 < names.size() ? names.get(i - 1) : "";
            if (mapped && name.equals("event_id")) {
                eventId = nil(in) ? null : in.unpackLong();
            } else if (names.contains(name) || mapped && ENVELOPE.contains(name)) {
                field(in, name, tag, e, stored, removed, settings);
            } else {
                in.skipValue();
            }
        }
        switch (tag) {
            case "BlockStored" -> e.setStored(stored);
            case "BlockRemoved" -> e.setRemoved(removed);
            default -> e.setCleared(AllBlocksCleared.getDefaultInstance());
        }
        return new Parsed(e, eventId);
    }

    private static void field(MessageUnpacker in, String name, String tag, EngineEvent.Builder e,
            BlockStored.Builder stored, BlockRemoved.Builder removed, BridgeSettings settings) throws IOException {
        if (nil(in)) {
            return;
        }
        switch (name) {
            case "block_hashes", "seq_hashes" -> {
                List<EngineBlockHash> hashes = hashes(in);
                if (tag.equals("BlockStored")) {
                    hashes.forEach(stored::addBlockHashes);
                } else {
                    hashes.forEach(removed::addBlockHashes);
                }
                if (name.equals("seq_hashes")) {
                    e.setHashScheme(RollingHashChain.SCHEME);
                }
            }
            case "parent_block_hash", "parent_seq_hash" -> stored.setParentBlockHash(hash(in));
            case "token_ids" -> {
                int tokens = in.unpackArrayHeader();
                for (int t = 0; t < tokens; t++) {
                    stored.addTokenIds(in.unpackInt());
                }
            }
            case "block_size" -> {
                int blockSize = in.unpackInt();
                if (blockSize != settings.blockSize()) {
                    throw new IOException("BlockStored says block_size " + blockSize + ", the bridge was told "
                            + settings.blockSize() + " (--block-size)");
                }
            }
            case "lora_id" -> e.setLoraId(in.unpackLong());
            case "medium" -> e.setMedium(in.unpackString());
            case "tenant_id" -> e.setTenantId(in.unpackString());
            case "dp_rank" -> e.setDpRank(in.unpackInt());
            case "additional_salt" -> e.setAdditionalSalt(in.unpackString());
            case "lora_name" -> e.setLoraName(in.unpackString());
            case "base_block_idx" -> stored.setBaseBlockIdx(in.unpackInt());
            default -> in.skipValue();
        }
    }

    private static List<EngineBlockHash> hashes(MessageUnpacker in) throws IOException {
        int n = in.unpackArrayHeader();
        List<EngineBlockHash> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(hash(in));
        }
        return out;
    }

    private static EngineBlockHash hash(MessageUnpacker in) throws IOException {
        MessageFormat format = in.getNextFormat();
        if (format.getValueType() == ValueType.BINARY) {
            byte[] raw = new byte[in.unpackBinaryHeader()];
            in.readPayload(raw);
            return EngineBlockHash.newBuilder().setRaw(ByteString.copyFrom(raw)).build();
        }
        if (format.getValueType() == ValueType.INTEGER) {
            return EngineBlockHash.newBuilder().setU64(in.unpackBigInteger().longValue()).build();
        }
        throw new IOException("a block hash is an int or bytes; got " + format.getValueType());
    }

    private static boolean nil(MessageUnpacker in) throws IOException {
        if (in.getNextFormat() == MessageFormat.NIL) {
            in.unpackNil();
            return true;
        }
        return false;
    }

    private static void skip(MessageUnpacker in, int values) throws IOException {
        for (int i = 0; i < values; i++) {
            in.skipValue();
        }
    }
}
