package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Trimming a body file's unread tail ({@link ExtentRefs}): which files may be trimmed (only on disk, no RAM-only
 * copy, no pending write), the CRC32C and chunk checksums of the bytes kept, and the truncation itself, {@link #DELAY} after the batch
 * that recorded it, so a GET already streaming the deleted object's tail from the file can finish. The freed bytes
 * count as room at once; a crash before the truncation leaves a file longer than its record, which startup
 * validation truncates.
 */
final class Trims implements ExtentRefs.Trimmer, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Trims.class);
    static final Duration DELAY = Duration.ofSeconds(2);

    private final DataDirectory directory;
    private final StoreOptions options;
    private final ScheduledThreadPoolExecutor truncations;
    private final BodyReaders readers;
    private volatile Tiers tiers;

    Trims(DataDirectory directory, StoreOptions options) {
        this.directory = directory;
        this.options = options;
        this.truncations = new ScheduledThreadPoolExecutor(1, r -> {
            Thread thread = Executors.defaultThreadFactory().newThread(r);
            thread.setName("body-trim");
            thread.setDaemon(true);
            return thread;
        });
        // pending truncations at a stop are left to the next startup validation
        truncations.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.readers = new BodyReaders(truncations);
    }

    /** The reads in flight, whose files' deletes and trims wait for them. */
    BodyReaders readers() {
        return readers;
    }

    /** Runs {@code delete} (of body file {@code fileId}, whose last holder went) once no read sends from it. */
    void deleteWhenUnread(String fileId, Runnable delete) {
        readers.whenUnread(fileId, delete);
    }

    /** Files become trimmable once the tiers exist (after startup validation). */
    void attach(Tiers tiers) {
        this.tiers = tiers;
    }

    @Override
    public Optional<ExtentRefs.FileEntry> prefix(String fileId, ExtentRefs.FileEntry entry, long length) {
        Tiers current = tiers;
        if (current == null || options.policy() == TierPolicy.RAM_ONLY || !current.onDisk(fileId)) {
            return Optional.empty();
        }
        try {
            CRC32C whole = new CRC32C();
            Path file = directory.objectFile(fileId);
            // the kept bytes are checked against the file's checksums before they get new ones: a trim must not
            // turn a rotten byte into one that passes
            ChunkSums sums = entry.sums() == null
                    ? ChunkSums.read(file, length, whole)
                    : entry.sums().kept(file, entry.size(), length, whole);
            if (sums == null) {
                LOG.error("Not trimming body file {}: bytes it keeps fail their checksum (reads will find them)",
                        fileId);
                return Optional.empty();
            }
            return Optional.of(new ExtentRefs.FileEntry(length, (int) whole.getValue(), entry.refs(), sums));
        } catch (IOException e) {
            LOG.warn("Not trimming body file {}: {}", fileId, e.toString());
            return Optional.empty();
        }
    }

    /**
     * Truncates {@code fileId} to {@code keep} bytes after {@link #DELAY}, and after every read sending from it then
     * (a read of the cut tail that began before the trim is never cut short).
     */
    void truncateLater(String fileId, long keep) {
        truncations.schedule(() -> readers.whenUnread(fileId, () -> {
            try {
                truncate(directory.objectFile(fileId), keep);
            } catch (NoSuchFileException e) {
                // deleted meanwhile: nothing to trim
            } catch (IOException e) {
                LOG.warn("Could not trim body file {} to {} bytes (startup validation will): {}", fileId, keep,
                        e.toString());
            }
        }), DELAY.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Cuts {@code file} to {@code keep} bytes; a shorter file is left as it is. */
    static void truncate(Path file, long keep) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.truncate(keep);
        }
    }

    @Override
    public void close() {
        truncations.shutdown();
    }
}
