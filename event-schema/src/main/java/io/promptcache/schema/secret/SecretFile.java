package io.promptcache.schema.secret;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file of secrets that services re-read while they run, so that a key is rotated without a restart (the index's API
 * keys, a storage node's SigV4 credentials, the key the index and the GC sign with): one {@code name=value} per line,
 * {@code #} comments and blank lines ignored, names unique. A Kubernetes Secret mounted as a volume is such a file
 * once its keys are lines (deploy/README.md, "Keys").
 *
 * <p>
 * {@link #watch} reads the file at once (a missing or malformed file fails the start), then every interval; a
 * changed content is parsed and handed over, and one that does not parse (or a file that went away) is logged and
 * ignored: the service keeps the last good keys rather than locking every caller out.
 */
public final class SecretFile implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SecretFile.class);

    private final ScheduledExecutorService timer;

    private SecretFile(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** The entries of {@code file}, in file order. */
    public static Map<String, String> read(Path file) {
        try {
            return parse(file, Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the secret file " + file + ": " + e.getMessage(), e);
        }
    }

    static Map<String, String> parse(Path file, String text) {
        Map<String, String> entries = new LinkedHashMap<>();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": expected name=value");
            }
            String name = line.substring(0, eq).strip();
            if (entries.put(name, line.substring(eq + 1).strip()) != null) {
                throw new IllegalArgumentException(file + " line " + (i + 1) + ": " + name + " is given twice");
            }
        }
        return entries;
    }

    /**
     * Reads {@code file} into {@code apply} now (failing on an unreadable file or one {@code interpret} refuses), then
     * re-reads it every {@code interval} and applies each new content {@code interpret} accepts. Close it to stop.
     *
     * @param interpret turns the entries into what the service holds (throws IllegalArgumentException to refuse)
     */
    public static <T> SecretFile watch(Path file, Duration interval, Function<Map<String, String>, T> interpret,
            Consumer<T> apply) {
        byte[] first = bytes(file);
        apply.accept(interpret.apply(parse(file, new String(first, StandardCharsets.UTF_8))));
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "secret-file " + file.getFileName());
            thread.setDaemon(true);
            return thread;
        });
        byte[][] last = {first};
        timer.scheduleWithFixedDelay(() -> {
            try {
                byte[] now = bytes(file);
                if (!Arrays.equals(now, last[0])) {
                    last[0] = now; // a content that cannot be used is reported once, not every interval
                    apply.accept(interpret.apply(parse(file, new String(now, StandardCharsets.UTF_8))));
                    LOG.info("Reloaded the secret file {}", file);
                }
            } catch (RuntimeException e) {
                LOG.error("The secret file {} changed and cannot be used ({}): the previous keys stay in force", file,
                        e.getMessage());
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
        return new SecretFile(timer);
    }

    private static byte[] bytes(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the secret file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
