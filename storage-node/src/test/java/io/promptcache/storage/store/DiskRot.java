package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** What a failing disk does to a body file, for the tests of checksums on read. */
public final class DiskRot {

    private DiskRot() {
    }

    /** Inverts the byte at {@code position} of {@code file} in place. */
    public static void flip(Path file, long position) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, position);
            one.put(0, (byte) ~one.get(0)).rewind();
            channel.write(one, position);
        }
    }
}
