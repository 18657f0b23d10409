package io.promptcache.devservices.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;

/** Work directories of the services a launcher starts (tests, benchmarks, the local stack). */
public final class WorkDirectories {

    private WorkDirectories() {
    }

    /**
     * Creates {@code dir} if needed and makes it readable by its owner only: where keys and key stores are written.
     * On a file system without POSIX permissions, the directory's own permissions stand.
     */
    public static Path ownerOnly(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        restrict(dir, "rwx------");
        return dir;
    }

    /** Makes the file {@code file} readable and writable by its owner only (where POSIX permissions exist). */
    public static void ownerOnlyFile(Path file) {
        restrict(file, "rw-------");
    }

    private static void restrict(Path path, String permissions) {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException notPosix) {
            // a file system without POSIX permissions: the parent directory's own stand
        } catch (IOException e) {
            throw new UncheckedIOException("cannot restrict the permissions of " + path, e);
        }
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
