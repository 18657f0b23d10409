package io.promptcache.storage.store;

/**
 * What startup validation found and cleaned (seed 004 {@code validate_index}).
 *
 * @param tempFilesCleaned partial bodies of PUTs that never committed
 * @param orphanFilesCleaned committed bodies no index entry points to (a crash between rename and metadata, or
 *        an overwrite whose old body was not yet deleted)
 * @param missingEntriesCleaned index entries whose body is missing or has the wrong size
 * @param corruptEntriesCleaned index entries that cannot be decoded
 * @param objects objects kept
 * @param bytes bytes kept
 * @param millis time taken
 */
public record ValidationReport(long tempFilesCleaned, long orphanFilesCleaned, long missingEntriesCleaned,
        long corruptEntriesCleaned, long objects, long bytes, long millis) {
}
