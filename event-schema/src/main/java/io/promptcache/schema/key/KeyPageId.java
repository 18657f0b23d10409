package io.promptcache.schema.key;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Key of topic {@code object-keys}: page {@code page} of the keys object {@code object}'s store wrote. Binary form:
 * the object id's 16 bytes, then the page index as a big-endian uint32 (docs/architecture.md, "Key pages").
 *
 * @param object the object whose keys the page lists
 * @param page the page's index, from 0
 */
public record KeyPageId(ObjectId object, int page) {

    public static final int LENGTH = ObjectId.LENGTH + Integer.BYTES;

    public KeyPageId {
        if (object == null || page < 0) {
            throw new IllegalArgumentException("a key page needs an object id and a page index >= 0, got " + object
                    + " / " + page);
        }
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(LENGTH).put(object.toBytes()).putInt(page).array();
    }

    public static KeyPageId fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("a key page id has " + LENGTH + " bytes, got "
                    + (bytes == null ? "none" : bytes.length));
        }
        int page = ByteBuffer.wrap(bytes, ObjectId.LENGTH, Integer.BYTES).getInt();
        return new KeyPageId(ObjectId.fromBytes(Arrays.copyOf(bytes, ObjectId.LENGTH)), page);
    }

    @Override
    public String toString() {
        return object + "/" + page;
    }
}
