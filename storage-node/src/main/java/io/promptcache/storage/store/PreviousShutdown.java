package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How the node's previous run ended, from the marker its stop leaves in the data directory (read and removed at the
 * next start): what operators ask after a restart ("did the last shutdown lose anything?").
 */
public enum PreviousShutdown {

    /** No run before this one on the data directory. */
    FIRST_START,
    /** Stopped gracefully: every body that was only in RAM reached disk. */
    CLEAN,
    /**
     * Stopped gracefully, but the writer did not drain within {@code tier.drain-timeout}: bodies that were only in RAM
     * then are lost (their entries were removed at this start).
     */
    PARTIAL_FLUSH,
    /** No marker: killed, crashed or lost power; what was only in RAM is lost, the start validated the rest. */
    UNCLEAN;

    private static final String CLEAN_TEXT = "clean";
    private static final String PARTIAL_TEXT = "partial";

    /** The name of this state in health data and metrics: {@code clean}, {@code partial_flush}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Leaves the marker of a graceful stop, {@code drained} or not. */
    static void mark(Path marker, boolean drained) throws IOException {
        Files.writeString(marker, (drained ? CLEAN_TEXT : PARTIAL_TEXT) + "\n");
    }

    /** Reads and removes the marker: how the previous run ended ({@code fresh}: there was none). */
    static PreviousShutdown consume(Path marker, boolean fresh) {
        if (fresh) {
            return FIRST_START;
        }
        try {
            String text = Files.readString(marker, StandardCharsets.US_ASCII).trim();
            Files.deleteIfExists(marker);
            return text.equals(CLEAN_TEXT) ? CLEAN : text.equals(PARTIAL_TEXT) ? PARTIAL_FLUSH : UNCLEAN;
        } catch (NoSuchFileException e) {
            return UNCLEAN;
        } catch (IOException e) {
            return UNCLEAN;
        }
    }
}
