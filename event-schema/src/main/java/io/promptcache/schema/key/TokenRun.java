package io.promptcache.schema.key;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

import io.promptcache.schema.hash.Bytes;

/**
 * The tokens a chain hashes, as they arrived: token ids, or their little-endian int32 bytes (the binary request
 * form), read in place. Compared with another run without converting either when both have one form.
 */
final class TokenRun {

    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class,
            ByteOrder.LITTLE_ENDIAN);

    private final int[] ids;
    private final byte[] bytes;
    private final int offset;
    private final int count;

    private TokenRun(int[] ids, byte[] bytes, int offset, int count) {
        this.ids = ids;
        this.bytes = bytes;
        this.offset = offset;
        this.count = count;
    }

    static TokenRun ofIds(int[] ids, int count) {
        return new TokenRun(ids, null, 0, count);
    }

    static TokenRun ofBytes(byte[] bytes, int offset, int count) {
        return new TokenRun(null, bytes, offset, count);
    }

    int count() {
        return count;
    }

    /** Writes tokens {@code [from, from + n)} as little-endian int32 into {@code out} at {@code at}. */
    void copyLittleEndian(int from, int n, byte[] out, int at) {
        if (ids != null) {
            Bytes.putIntsLittleEndian(out, at, ids, from, n);
        } else {
            System.arraycopy(bytes, offset + 4 * from, out, at, 4 * n);
        }
    }

    private int id(int i) {
        return ids != null ? ids[i] : (int) INT_LE.get(bytes, offset + 4 * i);
    }

    /** How many leading tokens this run and {@code other} have in common. */
    int common(TokenRun other) {
        int n = Math.min(count, other.count);
        if (ids != null && other.ids != null) {
            int m = Arrays.mismatch(ids, 0, n, other.ids, 0, n);
            return m < 0 ? n : m;
        }
        if (bytes != null && other.bytes != null) {
            int m = Arrays.mismatch(bytes, offset, offset + 4 * n, other.bytes, other.offset, other.offset + 4 * n);
            return m < 0 ? n : m / 4;
        }
        for (int i = 0; i < n; i++) {
            if (id(i) != other.id(i)) {
                return i;
            }
        }
        return n;
    }

    /** Bytes this run holds on to (the array it reads, whole). */
    long retainedBytes() {
        return ids != null ? 4L * ids.length : bytes.length;
    }
}
