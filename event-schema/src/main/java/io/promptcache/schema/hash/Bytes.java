package io.promptcache.schema.hash;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.HexFormat;

/** Fixed-width integer encodings used by the hash chains and keys. */
public final class Bytes {

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG_LE = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final VarHandle INT_LE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
    private static final HexFormat HEX = HexFormat.of();

    private Bytes() {
    }

    public static void putLongBigEndian(byte[] out, int offset, long value) {
        LONG_BE.set(out, offset, value);
    }

    public static long getLongBigEndian(byte[] in, int offset) {
        return (long) LONG_BE.get(in, offset);
    }

    public static void putLongLittleEndian(byte[] out, int offset, long value) {
        LONG_LE.set(out, offset, value);
    }

    /** Writes {@code count} ints from {@code values[from]} as little-endian int32 at {@code out[offset]}. */
    public static void putIntsLittleEndian(byte[] out, int offset, int[] values, int from, int count) {
        for (int i = 0; i < count; i++) {
            INT_LE.set(out, offset + 4 * i, values[from + i]);
        }
    }

    public static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    public static byte[] fromHex(String hex) {
        return HEX.parseHex(hex);
    }
}
