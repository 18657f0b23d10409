package io.promptcache.schema.namespace;

import java.util.Arrays;

import io.promptcache.schema.hash.Bytes;

/**
 * The canonical id of a namespace: the first 16 bytes of SHA-256 over {@link NamespaceSpec#canonicalForm()}.
 * Text form: 32 lowercase hex characters.
 */
public final class NamespaceId {

    /** Length of an id in bytes. */
    public static final int LENGTH = 16;

    private final byte[] bytes;

    private NamespaceId(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Wraps 16 id bytes (copied). */
    public static NamespaceId ofBytes(byte[] bytes) {
        if (bytes == null || bytes.length != LENGTH) {
            throw new IllegalArgumentException("a namespace id is " + LENGTH + " bytes");
        }
        return new NamespaceId(bytes.clone());
    }

    /** Parses the 32-hex-character text form. */
    public static NamespaceId parse(String hex) {
        if (hex == null || hex.length() != 2 * LENGTH || !hex.chars().allMatch(NamespaceId::isLowerHex)) {
            throw new IllegalArgumentException("namespace id '" + hex + "' is not 32 lowercase hex characters");
        }
        return new NamespaceId(Bytes.fromHex(hex));
    }

    private static boolean isLowerHex(int c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }

    /** A copy of the 16 id bytes. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** Copies the id bytes into {@code out} at {@code offset}. */
    public void copyTo(byte[] out, int offset) {
        System.arraycopy(bytes, 0, out, offset, LENGTH);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NamespaceId other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return Bytes.hex(bytes);
    }
}
