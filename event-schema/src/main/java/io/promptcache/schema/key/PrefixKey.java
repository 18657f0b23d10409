package io.promptcache.schema.key;

import java.util.Arrays;
import java.util.Objects;

import io.promptcache.schema.hash.Bytes;
import io.promptcache.schema.namespace.NamespaceId;

/**
 * Key of the {@code prefixes} topic: a namespace id and one prefix hash {@code h_i}.
 *
 * <p>Binary form (the Kafka key bytes): {@code 0x01 | namespaceId (16 bytes) | prefixHash (16 or 32 bytes)}.
 * The leading format byte lets a future layout coexist; equal keys are always equal bytes, as compaction needs.
 */
public final class PrefixKey {

    /** Format byte of the current binary layout. */
    public static final byte FORMAT_V1 = 0x01;

    private final NamespaceId namespace;
    private final byte[] prefixHash;

    public PrefixKey(NamespaceId namespace, byte[] prefixHash) {
        this.namespace = Objects.requireNonNull(namespace, "namespace");
        if (prefixHash == null || (prefixHash.length != 16 && prefixHash.length != 32)) {
            throw new IllegalArgumentException("a prefix hash is 16 (XXH3-128) or 32 (SHA-256) bytes");
        }
        this.prefixHash = prefixHash.clone();
    }

    public static PrefixKey fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length < 1 + NamespaceId.LENGTH + 16) {
            throw new IllegalArgumentException("a prefix key is at least " + (1 + NamespaceId.LENGTH + 16) + " bytes");
        }
        if (bytes[0] != FORMAT_V1) {
            throw new IllegalArgumentException("unknown prefix key format byte " + bytes[0]);
        }
        NamespaceId namespace = NamespaceId.ofBytes(Arrays.copyOfRange(bytes, 1, 1 + NamespaceId.LENGTH));
        return new PrefixKey(namespace, Arrays.copyOfRange(bytes, 1 + NamespaceId.LENGTH, bytes.length));
    }

    public byte[] toBytes() {
        byte[] out = new byte[1 + NamespaceId.LENGTH + prefixHash.length];
        out[0] = FORMAT_V1;
        namespace.copyTo(out, 1);
        System.arraycopy(prefixHash, 0, out, 1 + NamespaceId.LENGTH, prefixHash.length);
        return out;
    }

    public NamespaceId namespace() {
        return namespace;
    }

    /** A copy of the prefix hash. */
    public byte[] prefixHash() {
        return prefixHash.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PrefixKey other && namespace.equals(other.namespace)
                && Arrays.equals(prefixHash, other.prefixHash);
    }

    @Override
    public int hashCode() {
        return 31 * namespace.hashCode() + Arrays.hashCode(prefixHash);
    }

    @Override
    public String toString() {
        return namespace + ":" + Bytes.hex(prefixHash);
    }
}
