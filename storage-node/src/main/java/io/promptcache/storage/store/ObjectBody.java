package io.promptcache.storage.store;

import java.nio.file.Path;

import io.netty.buffer.ByteBuf;

/**
 * Where a GET finds an object's body: a retained off-heap view of it in RAM (the reader releases it once sent), or
 * its file on disk.
 *
 * @param ram the body in RAM, or null
 * @param file the body file, or null when served from RAM
 */
public record ObjectBody(ByteBuf ram, Path file) {

    static ObjectBody inRam(ByteBuf body) {
        return new ObjectBody(body, null);
    }

    static ObjectBody onDisk(Path file) {
        return new ObjectBody(null, file);
    }
}
