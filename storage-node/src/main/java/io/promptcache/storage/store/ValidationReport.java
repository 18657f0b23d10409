package io.promptcache.storage.store;

/**
 * What startup validation found and cleaned (seed 004 {@code validate_index}).
 *
 * @param tempFilesCleaned partial bodies of PUTs that never committed
 * @param orphanFilesCleaned committed bodies no index entry points to (a crash between rename and metadata, or
 *        an overwrite whose old body was not yet deleted)
 * @param missingEntriesCleaned index entries whose body is missing or has the wrong size
 * @param corruptEntriesCleaned index entries that cannot be decoded
 * @param refsRepaired stored reference counts of body files that differed from what the records hold (0 after any
 *        crash: counts and records change in one batch) and were repaired
 * @param objects objects kept
 * @param bytes physical bytes kept (body files once each, inline bodies, parts)
 * @param logicalBytes the kept objects' sizes summed
 * @param millis time taken
 */
public record ValidationReport(long tempFilesCleaned, long orphanFilesCleaned, long missingEntriesCleaned,
        long corruptEntriesCleaned, long refsRepaired, long objects, long bytes, long logicalBytes, long millis) {
}
