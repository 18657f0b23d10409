package io.promptcache.schema.hash;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;

/** XXH3-128 with seed 0 through hash4j, written in xxHash's canonical (big-endian high, then low) form. */
final class Xxh3Digest implements HashAlgorithm.Digest {

    private static final Hasher128 XXH3_128 = Hashing.xxh3_128();

    @Override
    public void hash(byte[] input, int length, byte[] out, int offset) {
        HashValue128 value = XXH3_128.hashBytesTo128Bits(input, 0, length);
        Bytes.putLongBigEndian(out, offset, value.getMostSignificantBits());
        Bytes.putLongBigEndian(out, offset + 8, value.getLeastSignificantBits());
    }
}
