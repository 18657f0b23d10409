package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Work directories of the services a launcher starts (tests, benchmarks, the local stack). */
public final class WorkDirectories {

    private WorkDirectories() {
    }

    /**
     * Deletes {@code dir} and everything under it, if it exists. A service started on a fresh broker needs a fresh
     * Kafka Streams state dir: a leftover one does not match the new log (STACK.md pitfall 1).
     */
    public static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
