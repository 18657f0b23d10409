package io.promptcache.schema.object;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GraceWindowTest {

    @Test
    void shouldTakeAPositiveWindowAndRefuseAnyOtherNamingTheSetting() {
        assertThat(GraceWindow.check(Duration.ofMillis(500))).isEqualTo(Duration.ofMillis(500));
        assertThat(GraceWindow.check(Duration.parse("PT" + GraceWindow.DEFAULT))).isEqualTo(Duration.ofSeconds(30));
        for (Duration wrong : new Duration[]{Duration.ZERO, Duration.ofSeconds(-1), null}) {
            assertThatThrownBy(() -> GraceWindow.check(wrong)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("promptcache.grace");
        }
    }
}
