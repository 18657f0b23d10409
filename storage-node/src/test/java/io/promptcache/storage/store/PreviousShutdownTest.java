package io.promptcache.storage.store;

import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** The marker a stop leaves, and what the next start makes of it (once: it is removed as it is read). */
class PreviousShutdownTest {

    @TempDir
    Path dir;

    @Test
    void shouldTellHowThePreviousRunEnded() throws Exception {
        Path marker = dir.resolve("clean-shutdown");
        assertThat(PreviousShutdown.consume(marker, true)).isEqualTo(PreviousShutdown.FIRST_START);
        assertThat(PreviousShutdown.consume(marker, false)).as("no marker: killed").isEqualTo(PreviousShutdown.UNCLEAN);

        PreviousShutdown.mark(marker, true);
        assertThat(PreviousShutdown.consume(marker, false)).isEqualTo(PreviousShutdown.CLEAN);
        assertThat(PreviousShutdown.consume(marker, false)).as("consumed: a later kill is not taken for clean")
                .isEqualTo(PreviousShutdown.UNCLEAN);

        PreviousShutdown.mark(marker, false);
        assertThat(PreviousShutdown.consume(marker, false)).isEqualTo(PreviousShutdown.PARTIAL_FLUSH);
        assertThat(PreviousShutdown.PARTIAL_FLUSH.label()).isEqualTo("partial_flush");
    }
}
