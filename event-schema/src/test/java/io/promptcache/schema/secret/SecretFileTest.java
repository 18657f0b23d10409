package io.promptcache.schema.secret;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SecretFileTest {

    @TempDir
    Path dir;

    @Test
    void shouldReadNameValueLinesAndRefuseWhatIsNotOne() throws Exception {
        Path file = dir.resolve("keys");
        Files.writeString(file, "# tenants\n\nteam-a = k1,k2\nteam-b=k3=x\n");
        assertThat(SecretFile.read(file)).containsExactly(Map.entry("team-a", "k1,k2"), Map.entry("team-b", "k3=x"));
        Files.writeString(file, "team-a=k1\nnot a line\n");
        assertThatThrownBy(() -> SecretFile.read(file)).hasMessageContaining("line 2");
        Files.writeString(file, "team-a=k1\nteam-a=k2\n");
        assertThatThrownBy(() -> SecretFile.read(file)).hasMessageContaining("given twice");
        assertThatThrownBy(() -> SecretFile.read(dir.resolve("missing"))).hasMessageContaining("cannot read");
    }

    @Test
    void shouldApplyEveryUsableChangeAndKeepTheLastGoodOneOtherwise() throws Exception {
        // Given: a watched file whose interpretation refuses an empty map
        Path file = dir.resolve("keys");
        Files.writeString(file, "a=1\n");
        AtomicReference<Map<String, String>> current = new AtomicReference<>();
        SecretFile watch = SecretFile.watch(file, Duration.ofMillis(50), entries -> {
            if (entries.isEmpty()) {
                throw new IllegalArgumentException("no key");
            }
            return entries;
        }, current::set);
        try {
            assertThat(current.get()).containsExactly(Map.entry("a", "1"));

            // When: a second key is added, then every key removed (refused), then the file is broken
            Files.writeString(file, "a=1\nb=2\n");
            eventually(() -> current.get().size() == 2);
            Files.writeString(file, "# nothing\n");
            Thread.sleep(300);
            assertThat(current.get()).as("a refused content keeps the last good one").hasSize(2);
            Files.writeString(file, "broken\n");
            Thread.sleep(300);
            assertThat(current.get()).hasSize(2);

            // Then: a usable content again is applied
            Files.writeString(file, "b=3\n");
            eventually(() -> current.get().equals(Map.of("b", "3")));
        } finally {
            watch.close();
        }
    }

    @Test
    void shouldFailTheStartOnAFileItCannotUse() throws Exception {
        Path file = dir.resolve("keys");
        Files.writeString(file, "x\n");
        assertThatThrownBy(() -> SecretFile.watch(file, Duration.ofSeconds(1), m -> m, m -> {
        })).hasMessageContaining("expected name=value");
    }

    private static void eventually(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("within 5 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
