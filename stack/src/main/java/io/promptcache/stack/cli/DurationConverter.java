package io.promptcache.stack.cli;

import java.time.Duration;
import java.util.Locale;

import picocli.CommandLine.ITypeConverter;

/** Durations on the command line: ISO-8601 ({@code PT90S}) or {@code 500ms}, {@code 90s}, {@code 10m}, {@code 2h}. */
public final class DurationConverter implements ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new IllegalArgumentException();
            };
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a duration: '" + value + "' (say 500ms, 90s, 10m, 2h or PT90S)");
        }
    }
}
