package io.promptcache.schema.hash;

import java.util.Locale;

/**
 * The hash {@code H} of a namespace's prefix-hash chain. Selected per namespace.
 */
public enum HashAlgorithm {

    /** SHA-256 (JDK {@code MessageDigest}), 32-byte digests. The default: safe against crafted collisions. */
    SHA256("sha256", 32, io.promptcache.schema.proto.HashAlgorithm.HASH_ALGORITHM_SHA256),
    /** XXH3-128 (hash4j, seed 0, canonical big-endian), 16-byte digests. Fast; for trusted deployments. */
    XXH3_128("xxh3-128", 16, io.promptcache.schema.proto.HashAlgorithm.HASH_ALGORITHM_XXH3_128);

    private final String wireName;
    private final int digestLength;
    private final io.promptcache.schema.proto.HashAlgorithm proto;

    HashAlgorithm(String wireName, int digestLength, io.promptcache.schema.proto.HashAlgorithm proto) {
        this.wireName = wireName;
        this.digestLength = digestLength;
        this.proto = proto;
    }

    /** The name used in namespace ids, configuration and REST: {@code sha256} or {@code xxh3-128}. */
    public String wireName() {
        return wireName;
    }

    /** Length in bytes of one chain hash. */
    public int digestLength() {
        return digestLength;
    }

    public io.promptcache.schema.proto.HashAlgorithm toProto() {
        return proto;
    }

    /** A new, single-threaded digest function for this algorithm. */
    public Digest newDigest() {
        return this == SHA256 ? new Sha256Digest() : new Xxh3Digest();
    }

    /** Parses a wire name, case-insensitively. */
    public static HashAlgorithm fromWireName(String name) {
        if (name != null) {
            String lower = name.toLowerCase(Locale.ROOT);
            for (HashAlgorithm algorithm : values()) {
                if (algorithm.wireName.equals(lower)) {
                    return algorithm;
                }
            }
        }
        throw new IllegalArgumentException("unknown hash algorithm '" + name + "': use sha256 or xxh3-128");
    }

    /** The algorithm of a protobuf enum value. */
    public static HashAlgorithm fromProto(io.promptcache.schema.proto.HashAlgorithm proto) {
        for (HashAlgorithm algorithm : values()) {
            if (algorithm.proto == proto) {
                return algorithm;
            }
        }
        throw new IllegalArgumentException("unknown hash algorithm " + proto + ": use sha256 or xxh3-128");
    }

    /** A digest function: not thread-safe, reusable. */
    public interface Digest {

        /** Hashes {@code input[0, length)} into {@code out[offset, offset + digestLength)}. */
        void hash(byte[] input, int length, byte[] out, int offset);
    }
}
