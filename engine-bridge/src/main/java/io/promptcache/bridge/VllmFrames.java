package io.promptcache.bridge;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

import com.google.protobuf.ByteString;

import io.promptcache.schema.proto.AllBlocksCleared;
import io.promptcache.schema.proto.BlockRemoved;
import io.promptcache.schema.proto.BlockStored;
import io.promptcache.schema.proto.EngineBlockHash;
import io.promptcache.schema.proto.EngineEvent;

/**
 * Decodes the payload frame of vLLM's KV-event publisher: msgpack of {@code KVEventBatch} as msgspec encodes it
 * ({@code array_like}, tagged, trailing defaults omitted): {@code [ts, [event, ...], data_parallel_rank?]}, each
 * event {@code ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium]},
 * {@code ["BlockRemoved", block_hashes, medium]} or {@code ["AllBlocksCleared"]}; a block hash is an int (older
 * vLLM: Python {@code hash}) or bytes (sha256-based). Event ids: {@code seq x 65536 + index in the batch}, so they
 * grow with vLLM's per-publisher sequence number and start over at 0 when the engine restarts (which the router
 * reads as a restart).
 */
public final class VllmFrames {

    private VllmFrames() {
    }

    /** The EngineEvents of one batch with sequence number {@code seq}. */
    public static List<EngineEvent> decode(byte[] payload, long seq, BridgeSettings settings) throws IOException {
        try (MessageUnpacker in = MessagePack.newDefaultUnpacker(payload)) {
            int fields = in.unpackArrayHeader();
            if (fields < 2) {
                throw new IOException("an event batch is [ts, events, dp_rank?]; got " + fields + " fields");
            }
            double ts = in.getNextFormat().getValueType() == ValueType.FLOAT ? in.unpackDouble() : in.unpackLong();
            int count = in.unpackArrayHeader();
            List<EngineEvent.Builder> events = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                events.add(event(in, settings));
            }
            Long dpRank = null;
            if (fields > 2 && !nil(in)) {
                dpRank = in.unpackLong();
            }
            List<EngineEvent> out = new ArrayList<>(count);
            for (int i = 0; i < events.size(); i++) {
                EngineEvent.Builder e = events.get(i).setSchemaVersion(1).setEventId(seq * 65536 + i)
                        .setTimestampMs((long) (ts * 1000)).setBackendId(settings.backendId())
                        .setModelName(settings.model()).setBlockSize(settings.blockSize())
                        .setTenantId(settings.tenant());
                settings.salt().ifPresent(e::setAdditionalSalt);
                settings.loraName().ifPresent(e::setLoraName);
                if (dpRank != null) {
                    e.setDpRank(dpRank.intValue());
                }
                out.add(e.build());
            }
            return out;
        }
    }

    private static EngineEvent.Builder event(MessageUnpacker in, BridgeSettings settings) throws IOException {
        int fields = in.unpackArrayHeader();
        String tag = in.unpackString();
        EngineEvent.Builder e = EngineEvent.newBuilder();
        switch (tag) {
            case "BlockStored" -> {
                BlockStored.Builder stored = BlockStored.newBuilder();
                if (fields > 1) {
                    hashes(in).forEach(stored::addBlockHashes);
                }
                if (fields > 2 && !nil(in)) {
                    stored.setParentBlockHash(hash(in));
                }
                if (fields > 3) {
                    int tokens = in.unpackArrayHeader();
                    for (int t = 0; t < tokens; t++) {
                        stored.addTokenIds(in.unpackInt());
                    }
                }
                if (fields > 4 && !nil(in)) {
                    int blockSize = in.unpackInt();
                    if (blockSize != settings.blockSize()) {
                        throw new IOException("BlockStored says block_size " + blockSize + ", the bridge was told "
                                + settings.blockSize() + " (--block-size)");
                    }
                }
                if (fields > 5 && !nil(in)) {
                    e.setLoraId(in.unpackLong());
                }
                if (fields > 6 && !nil(in)) {
                    e.setMedium(in.unpackString());
                }
                skip(in, fields - 7);
                e.setStored(stored);
            }
            case "BlockRemoved" -> {
                BlockRemoved.Builder removed = BlockRemoved.newBuilder();
                if (fields > 1) {
                    hashes(in).forEach(removed::addBlockHashes);
                }
                if (fields > 2 && !nil(in)) {
                    e.setMedium(in.unpackString());
                }
                skip(in, fields - 3);
                e.setRemoved(removed);
            }
            case "AllBlocksCleared" -> {
                skip(in, fields - 1);
                e.setCleared(AllBlocksCleared.getDefaultInstance());
            }
            default -> throw new IOException("unknown KV event type " + tag);
        }
        return e;
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
