package io.promptcache.stack.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SizesTest {

    @Test
    void shouldParseSizesWithBinaryUnits() {
        assertThat(Sizes.parse("1048576")).isEqualTo(1 << 20);
        assertThat(Sizes.parse("512KiB")).isEqualTo(512 << 10);
        assertThat(Sizes.parse("160MiB")).isEqualTo(160L << 20);
        assertThat(Sizes.parse("2g")).isEqualTo(2L << 30);
        assertThat(Sizes.format(160L << 20)).isEqualTo("160.0 MiB");
        assertThat(Sizes.format(512)).isEqualTo("512 B");
    }

    @Test
    void shouldRefuseWhatIsNotASizeWithAnExample() {
        assertThatThrownBy(() -> Sizes.parse("lots")).hasMessageContaining("not a size: 'lots'")
                .hasMessageContaining("160MiB");
        assertThatThrownBy(() -> Sizes.parse("-5MiB")).isInstanceOf(IllegalArgumentException.class);
    }
}
