package io.promptcache.stack.up;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code up --grace} sets the grace window, the one setting of the three services, in each at once, keeps their other
 * settings, refuses a second value for it, and without it leaves every service's configuration as given.
 */
class GraceWindowTest {

    @Test
    void shouldSetTheOneSettingOfTheThreeServices() {
        GraceWindow window = new GraceWindow(Duration.ofSeconds(2));
        assertThat(window.gc(Map.of("promptcache.gc.high-watermark", "0.9")))
                .containsEntry("promptcache.grace", "PT2S")
                .containsEntry("promptcache.gc.high-watermark", "0.9");
        assertThat(window.index(Map.of())).containsExactly(Map.entry("promptcache.grace", "PT2S"));
        assertThat(window.node(Map.of())).containsExactly(Map.entry("promptcache.grace", "PT2S"));
    }

    @Test
    void shouldRefuseASecondValueForTheWindow() {
        GraceWindow window = new GraceWindow(Duration.ofMillis(500));
        assertThatThrownBy(() -> window.node(Map.of("promptcache.grace", "30s")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--node-config promptcache.grace");
        assertThatThrownBy(() -> new GraceWindow(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--grace: promptcache.grace (the grace window) must be positive");
    }

    @Test
    void shouldLeaveTheServicesSettingsWithoutIt() {
        GraceWindow none = new GraceWindow(null);
        Map<String, String> gc = Map.of("promptcache.grace", "2s");
        assertThat(none.gc(gc)).isSameAs(gc);
        assertThat(none.node(Map.of())).isEmpty();
    }
}
