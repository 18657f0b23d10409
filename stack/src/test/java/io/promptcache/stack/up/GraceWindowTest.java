package io.promptcache.stack.up;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code up --grace} sets the grace window of the three services at once (the GC's grace, the index's tombstone
 * grace, the nodes' self-evict age), keeps their other settings, refuses a second value for one of them, and without
 * it leaves every service's configuration as given.
 */
class GraceWindowTest {

    @Test
    void shouldSetTheThreeSettingsToOneWindow() {
        GraceWindow window = new GraceWindow(Duration.ofSeconds(2));
        assertThat(window.gc(Map.of("promptcache.gc.high-watermark", "0.9")))
                .containsEntry("promptcache.gc.grace", "PT2S")
                .containsEntry("promptcache.gc.high-watermark", "0.9");
        assertThat(window.index(Map.of())).containsExactly(Map.entry("promptcache.index.store.tombstone-grace",
                "PT2S"));
        assertThat(window.node(Map.of())).containsExactly(Map.entry("promptcache.storage.self-evict-after", "PT2S"));
    }

    @Test
    void shouldRefuseASecondValueForTheWindow() {
        GraceWindow window = new GraceWindow(Duration.ofMillis(500));
        assertThatThrownBy(() -> window.node(Map.of("promptcache.storage.self-evict-after", "30s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--node-config promptcache.storage.self-evict-after");
        assertThatThrownBy(() -> new GraceWindow(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--grace must be positive");
    }

    @Test
    void shouldLeaveTheServicesSettingsWithoutIt() {
        GraceWindow none = new GraceWindow(null);
        Map<String, String> gc = Map.of("promptcache.gc.grace", "2s");
        assertThat(none.gc(gc)).isSameAs(gc);
        assertThat(none.node(Map.of())).isEmpty();
    }
}
