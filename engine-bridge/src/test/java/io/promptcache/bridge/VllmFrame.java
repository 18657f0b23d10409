package io.promptcache.bridge;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Builds recorded vLLM KV-event payloads, as vLLM's publisher encodes them (msgspec, {@code array_like=True},
 * {@code tag=True}, {@code omit_defaults=True}): {@code [ts, [events], dp_rank?]}, events as tagged arrays.
 */
final class VllmFrame {

    private final MessageBufferPacker out = MessagePack.newDefaultBufferPacker();
    private int events;
    private final List<Runnable> writes = new java.util.ArrayList<>();

    static VllmFrame batch() {
        return new VllmFrame();
    }

    /** BlockStored with int hashes (older vLLM: Python hash) or bytes (sha256); parent null for a start. */
    VllmFrame stored(List<Object> hashes, Object parent, int[] tokens, int blockSize, Long loraId, String medium) {
        events++;
        writes.add(() -> io(() -> {
            out.packArrayHeader(7);
            out.packString("BlockStored");
            packHashes(hashes);
            packHash(parent);
            out.packArrayHeader(tokens.length);
            for (int t : tokens) {
                out.packInt(t);
            }
            out.packInt(blockSize);
            if (loraId == null) {
                out.packNil();
            } else {
                out.packLong(loraId);
            }
            if (medium == null) {
                out.packNil();
            } else {
                out.packString(medium);
            }
        }));
        return this;
    }

    /** BlockRemoved with the medium omitted (a trailing default) when null. */
    VllmFrame removed(List<Object> hashes, String medium) {
        events++;
        writes.add(() -> io(() -> {
            out.packArrayHeader(medium == null ? 2 : 3);
            out.packString("BlockRemoved");
            packHashes(hashes);
            if (medium != null) {
                out.packString(medium);
            }
        }));
        return this;
    }

    VllmFrame cleared() {
        events++;
        writes.add(() -> io(() -> {
            out.packArrayHeader(1);
            out.packString("AllBlocksCleared");
        }));
        return this;
    }

    /** The payload; {@code dpRank} null = omitted. */
    byte[] encode(double ts, Integer dpRank) {
        io(() -> {
            out.packArrayHeader(dpRank == null ? 2 : 3);
            out.packDouble(ts);
            out.packArrayHeader(events);
        });
        writes.forEach(Runnable::run);
        io(() -> {
            if (dpRank != null) {
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
