package io.promptcache.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Builds recorded vLLM KV-event payloads, as vLLM's publisher encodes them (msgspec, {@code tag=True},
 * {@code omit_defaults=True}): positional ({@code array_like=True}: {@code [ts, [events], dp_rank?]}, events as tagged
 * arrays) or, from {@link #mapped()}, map-encoded as vLLM 0.26+ sends them (field names; the tag first as
 * {@code "type"}; a {@code locality} field this bridge does not know; the batch's keys in another order).
 */
final class VllmFrame {

    private final MessageBufferPacker out = MessagePack.newDefaultBufferPacker();
    private int events;
    private boolean mapped;
    private final List<Runnable> writes = new java.util.ArrayList<>();

    static VllmFrame batch() {
        return new VllmFrame();
    }

    static VllmFrame mapped() {
        VllmFrame frame = new VllmFrame();
        frame.mapped = true;
        return frame;
    }

    private void tag(String type, int fields) throws IOException {
        if (mapped) {
            out.packMapHeader(fields);
            out.packString("type");
        } else {
            out.packArrayHeader(fields);
        }
        out.packString(type);
    }

    private void name(String field) throws IOException {
        if (mapped) {
            out.packString(field);
        }
    }

    /** BlockStored with int hashes (older vLLM: Python hash) or bytes (sha256); parent null for a start. */
    VllmFrame stored(List<Object> hashes, Object parent, int[] tokens, int blockSize, Long loraId, String medium) {
        events++;
        writes.add(() -> io(() -> {
            tag("BlockStored", mapped ? 8 : 7);
            name("block_hashes");
            packHashes(hashes);
            name("parent_block_hash");
            packHash(parent);
            name("token_ids");
            out.packArrayHeader(tokens.length);
            for (int t : tokens) {
                out.packInt(t);
            }
            name("block_size");
            out.packInt(blockSize);
            name("lora_id");
            if (loraId == null) {
                out.packNil();
            } else {
                out.packLong(loraId);
            }
            name("medium");
            if (medium == null) {
                out.packNil();
            } else {
                out.packString(medium);
            }
            if (mapped) {
                out.packString("locality");
                out.packString("local");
            }
        }));
        return this;
    }

    /** BlockRemoved with the medium omitted (a trailing default) when null. */
    VllmFrame removed(List<Object> hashes, String medium) {
        events++;
        writes.add(() -> io(() -> {
            tag("BlockRemoved", medium == null ? 2 : 3);
            name("block_hashes");
            packHashes(hashes);
            if (medium != null) {
                name("medium");
                out.packString(medium);
            }
        }));
        return this;
    }

    VllmFrame cleared() {
        events++;
        writes.add(() -> io(() -> {
            tag("AllBlocksCleared", 1);
        }));
        return this;
    }

    /** The payload; {@code dpRank} null = omitted. */
    byte[] encode(double ts, Integer dpRank) {
        io(() -> {
            if (mapped) {
                // the batch's keys in another order than the positional one: a decoder must read names
                out.packMapHeader(dpRank == null ? 2 : 3);
                if (dpRank != null) {
                    out.packString("data_parallel_rank");
                    out.packInt(dpRank);
                }
                out.packString("events");
                out.packArrayHeader(events);
            } else {
                out.packArrayHeader(dpRank == null ? 2 : 3);
                out.packDouble(ts);
                out.packArrayHeader(events);
            }
        });
        writes.forEach(Runnable::run);
        io(() -> {
            if (mapped) {
                out.packString("ts");
                out.packDouble(ts);
            } else if (dpRank != null) {
                out.packInt(dpRank);
            }
        });
        return out.toByteArray();
    }

    private void packHashes(List<Object> hashes) throws IOException {
        out.packArrayHeader(hashes.size());
        for (Object h : hashes) {
            packHash(h);
        }
    }

    private void packHash(Object hash) throws IOException {
        if (hash == null) {
            out.packNil();
        } else if (hash instanceof byte[] raw) {
            out.packBinaryHeader(raw.length);
            out.writePayload(raw);
        } else {
            out.packLong((Long) hash);
        }
    }

    private interface Io {

        void run() throws IOException;
    }

    private static void io(Io io) {
        try {
            io.run();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
