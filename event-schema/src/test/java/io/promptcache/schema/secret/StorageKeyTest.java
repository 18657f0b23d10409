package io.promptcache.schema.secret;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StorageKeyTest {

    private static final String PREFIX = "promptcache.index.storage.";

    @TempDir
    Path dir;

    @Test
    void shouldSignWithTheConfiguredKeyOrNothing() {
        assertThat(StorageKey.of(PREFIX, Optional.empty(), Optional.empty(), Optional.empty(), Duration.ofSeconds(1)))
                .isEmpty();
        assertThat(StorageKey.of(PREFIX, Optional.of("id"), Optional.of("secret"), Optional.empty(),
                Duration.ofSeconds(1)).orElseThrow().get()).isEqualTo(new StorageKey("id", "secret"));
        assertThatThrownBy(() -> StorageKey.of(PREFIX, Optional.of("id"), Optional.empty(), Optional.empty(),
                Duration.ofSeconds(1))).hasMessageContaining("set both " + PREFIX + "access-key-id");
        assertThat(new StorageKey("id", "secret").toString()).doesNotContain("secret");
    }

    @Test
    void shouldFollowTheCredentialsFile() throws Exception {
        // Given
        Path file = dir.resolve("storage-key");
        Files.writeString(file, "access-key-id=old\nsecret-access-key=s1\n");
        StorageKey.Source key = StorageKey.of(PREFIX, Optional.empty(), Optional.empty(), Optional.of(file),
                Duration.ofMillis(50)).orElseThrow();
        assertThat(key.get()).isEqualTo(new StorageKey("old", "s1"));

        // When: rotated
        Files.writeString(file, "access-key-id=new\nsecret-access-key=s2\n");

        // Then
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!key.get().accessKeyId().equals("new") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(key.get()).isEqualTo(new StorageKey("new", "s2"));
        key.close();
    }

    @Test
    void shouldStopReadingTheFileOnceClosed() throws Exception {
        // Given: a key read from a file, re-read every 50 ms by its own thread
        Path file = dir.resolve("closed-key");
        Files.writeString(file, "access-key-id=old\nsecret-access-key=s1\n");
        StorageKey.Source key = StorageKey.of(PREFIX, Optional.empty(), Optional.empty(), Optional.of(file),
                Duration.ofMillis(50)).orElseThrow();
        assertThat(watchers()).isPositive();

        // When: closed (its service stops), then the file changes
        key.close();
        Files.writeString(file, "access-key-id=new\nsecret-access-key=s2\n");

        // Then: no thread re-reads it any more (each file's watcher thread is named after it), the key stays
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (watchers() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(watchers()).isZero();
        Thread.sleep(200);
        assertThat(key.get()).isEqualTo(new StorageKey("old", "s1"));
    }

    private static long watchers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("secret-file closed-key")).count();
    }

    @Test
    void shouldRefuseAFileOfOtherLinesOrBothSources() throws Exception {
        Path file = dir.resolve("storage-key");
        Files.writeString(file, "access-key-id=id\n");
        assertThatThrownBy(() -> StorageKey.of(PREFIX, Optional.empty(), Optional.empty(), Optional.of(file),
                Duration.ofSeconds(1))).hasMessageContaining("exactly the lines");
        assertThatThrownBy(() -> StorageKey.of(PREFIX, Optional.of("id"), Optional.of("s"), Optional.of(file),
                Duration.ofSeconds(1))).hasMessageContaining("not both");
    }
}
