package io.promptcache.stack.cli;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DurationConverterTest {

    private final DurationConverter converter = new DurationConverter();

    @Test
    void shouldParseShortAndIsoDurations() {
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(converter.convert("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(converter.convert("PT2H")).isEqualTo(Duration.ofHours(2));
    }

    @Test
    void shouldRefuseAnUnknownUnit() {
        assertThatThrownBy(() -> converter.convert("3 weeks")).hasMessageContaining("not a duration");
    }
}
