package io.promptcache.schema.secret;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The access key the index and the GC sign their calls to storage nodes with: from configuration
 * ({@code <prefix>access-key-id} and {@code <prefix>secret-access-key}), or from a credentials file re-read while the
 * service runs ({@code <prefix>credentials-file}: lines {@code access-key-id=...} and {@code secret-access-key=...}),
 * so the key is rotated without a restart: the nodes accept the old and the new key, the file moves to the new one,
 * the nodes drop the old one.
 */
public record StorageKey(String accessKeyId, String secretAccessKey) {

    public StorageKey {
        if (accessKeyId == null || accessKeyId.isBlank() || secretAccessKey == null || secretAccessKey.isBlank()) {
            throw new IllegalArgumentException("a storage key needs an access key id and a secret access key");
        }
    }

    @Override
    public String toString() {
        return "StorageKey[" + accessKeyId + "]"; // never the secret
    }

    /** The service's key as of each call; {@link #close} stops re-reading a credentials file. */
    public interface Source extends Supplier<StorageKey>, AutoCloseable {

        @Override
        void close();
    }

    /**
     * The service's key as of each call, or empty when it signs nothing (anonymous calls to open nodes). A key read
     * from a file is re-read by a thread of its own until the source is closed.
     *
     * @param prefix the service's configuration prefix ({@code promptcache.index.storage.}), for the messages
     */
    public static Optional<Source> of(String prefix, Optional<String> accessKeyId,
            Optional<String> secretAccessKey, Optional<Path> credentialsFile, Duration reloadInterval) {
        if (accessKeyId.isPresent() != secretAccessKey.isPresent()) {
            throw new IllegalArgumentException("set both " + prefix + "access-key-id and " + prefix
                    + "secret-access-key, or neither");
        }
        if (credentialsFile.isPresent()) {
            if (accessKeyId.isPresent()) {
                throw new IllegalArgumentException("set " + prefix + "credentials-file or " + prefix
                        + "access-key-id / secret-access-key, not both");
            }
            AtomicReference<StorageKey> current = new AtomicReference<>();
            SecretFile watch = SecretFile.watch(credentialsFile.get(), reloadInterval, StorageKey::fromLines,
                    current::set);
            return Optional.of(source(current::get, watch::close));
        }
        if (accessKeyId.isPresent()) {
            StorageKey fixed = new StorageKey(accessKeyId.get(), secretAccessKey.get());
            return Optional.of(source(() -> fixed, () -> {
            }));
        }
        return Optional.empty();
    }

    private static Source source(Supplier<StorageKey> key, Runnable close) {
        return new Source() {

            @Override
            public StorageKey get() {
                return key.get();
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }

    /** A credentials file's two lines. */
    static StorageKey fromLines(Map<String, String> lines) {
        if (!lines.keySet().equals(java.util.Set.of("access-key-id", "secret-access-key"))) {
            throw new IllegalArgumentException("a storage credentials file has exactly the lines access-key-id=... "
                    + "and secret-access-key=... (found " + lines.keySet() + ")");
        }
        return new StorageKey(lines.get("access-key-id"), lines.get("secret-access-key"));
    }
}
