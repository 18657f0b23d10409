package io.promptcache.stack.up;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import io.promptcache.devservices.launcher.WorkDirectories;

/**
 * The keys a stack's services hold, as owner-only files under {@code <data>/secrets} that the services re-read while
 * they run (never on a command line, where {@code ps} would show them): a key is rotated by rewriting its file.
 * {@code node-credentials}: the storage nodes' {@code <access-key-id>=<secret>} lines; {@code storage-key}: the one
 * the index and the GC sign with; {@code api-keys}: the index's {@code <tenant>[/<principal>]=<key>[,<key>]} lines.
 */
public final class StackSecrets {

    private final Path dir;

    private StackSecrets(Path dir) {
        this.dir = dir;
    }

    static StackSecrets in(Path dir) {
        return new StackSecrets(WorkDirectories.ownerOnly(dir));
    }

    public Path nodeCredentials() {
        return dir.resolve("node-credentials");
    }

    public Path storageKey() {
        return dir.resolve("storage-key");
    }

    public Path apiKeys() {
        return dir.resolve("api-keys");
    }

    /** Replaces the keys the nodes accept: {@code <access-key-id>=<secret>} each. */
    public void writeNodeCredentials(List<String> lines) {
        write(nodeCredentials(), lines);
    }

    /** Replaces the key the index and the GC sign with. */
    public void writeStorageKey(String accessKeyId, String secret) {
        write(storageKey(), List.of("access-key-id=" + accessKeyId, "secret-access-key=" + secret));
    }

    /** Replaces the index's API keys: {@code <tenant>=<key>[,<key>]} each. */
    public void writeApiKeys(List<String> lines) {
        write(apiKeys(), lines);
    }

    /** Written whole and moved into place, so a service never reads half a file. */
    private static void write(Path file, List<String> lines) {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try {
            Files.write(tmp, lines);
            WorkDirectories.ownerOnlyFile(tmp);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
