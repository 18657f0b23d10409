package io.promptcache.storage.store;

import java.nio.file.Path;

import io.netty.buffer.ByteBuf;

/**
 * Where a GET finds an object's body: a retained off-heap view of it in RAM (the reader releases it once sent), its
 * file on disk, or bytes of its file read and checked against their checksums (both set: send the bytes).
 *
 * @param ram bytes to send from memory (the RAM tier's, or a file's checked bytes), or null
 * @param file the body file (the bytes came from it when {@code ram} is set too), or null when served from RAM
 */
public record ObjectBody(ByteBuf ram, Path file) {

    /** Bytes of {@code file} that passed their check, to be sent as they are. */
    static ObjectBody checked(ByteBuf bytes, Path file) {
        return new ObjectBody(bytes, file);
    }

    /** Whether the bytes come from the RAM tier (not from a file). */
    public boolean fromRam() {
        return ram != null && file == null;
    }

    static ObjectBody inRam(ByteBuf body) {
        return new ObjectBody(body, null);
    }

    static ObjectBody onDisk(Path file) {
        return new ObjectBody(null, file);
    }
}
