package io.promptcache.stack.cli;

import java.util.Locale;

import picocli.CommandLine.ITypeConverter;

/** Byte sizes on the command line: {@code 1048576}, {@code 512KiB}, {@code 160MiB}, {@code 2GiB} (also KB/MB/GB = 2^10...). */
public final class Sizes implements ITypeConverter<Long> {

    @Override
    public Long convert(String value) {
        return parse(value);
    }

    public static long parse(String value) {
        String v = value.trim().toUpperCase(Locale.ROOT).replace("IB", "B");
        long unit = 1;
        if (v.endsWith("KB") || v.endsWith("K")) {
            unit = 1L << 10;
        } else if (v.endsWith("MB") || v.endsWith("M")) {
            unit = 1L << 20;
        } else if (v.endsWith("GB") || v.endsWith("G")) {
            unit = 1L << 30;
        } else if (v.endsWith("TB") || v.endsWith("T")) {
            unit = 1L << 40;
        }
        String digits = v.replaceAll("[KMGTB]+$", "");
        try {
            long n = Long.parseLong(digits);
            if (n < 0) {
                throw new IllegalArgumentException("a size cannot be negative: " + value);
            }
            return Math.multiplyExact(n, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("not a size: '" + value + "' (say 1048576, 512KiB, 160MiB or 2GiB)");
        }
    }

    /** {@code 1.5 GiB}, {@code 20.0 MiB}, {@code 512 B}. */
    public static String format(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
