package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 004's {@code validate_index}, run before the node serves: removes partial bodies, drops index entries
 * whose body files are missing, have the wrong size or cannot be decoded, recounts the references of every body
 * file from the object and part records and repairs the stored counts where they differ, and deletes body files no
 * record holds. Afterwards every index entry has its complete body and every body file has its holders.
 */
final class StartupValidator {

    private static final Logger LOG = LoggerFactory.getLogger(StartupValidator.class);

    private final DataDirectory directory;
    private final MetadataStore metadata;
    private final UploadRecords uploads;
    private final ExtentRefs refs;
    private final RoomOrder room;
    /** The stored counts, as read before validation. */
    private final Map<String, ExtentRefs.FileEntry> stored = new HashMap<>();
    /** The counts the records imply. */
    private final Map<String, ExtentRefs.FileEntry> counted = new HashMap<>();
    /** Per file, how far its holders read (end -> holders), as the records imply. */
    private final Map<String, TreeMap<Long, Integer>> reaches = new HashMap<>();
    /** Size on disk of each file looked at (-1: missing). */
    private final Map<String, Long> sizes = new HashMap<>();

    StartupValidator(DataDirectory directory, MetadataStore metadata, UploadRecords uploads, ExtentRefs refs,
            RoomOrder room) {
        this.directory = directory;
        this.metadata = metadata;
        this.uploads = uploads;
        this.refs = refs;
        this.room = room;
    }

    ValidationReport run() {
        long start = System.nanoTime();
        long temp = deleteAll(directory.tmp());
        flattenLegacyUploads();
        metadata.scanFiles((fileId, value) -> {
            try {
                stored.put(fileId, ExtentRefs.FileEntry.decode(value));
            } catch (IllegalArgumentException e) {
                LOG.warn("Unreadable reference count of body file {}: recounted", fileId);
            }
        });
        long[] missing = {0};
        long[] corrupt = {0};
        long[] kept = {0, 0, 0};
        metadata.scanAll((bucket, key, value) -> {
            ObjectMeta meta;
            try {
                meta = ObjectMeta.decode(value);
            } catch (ObjectMeta.CorruptMetadataException e) {
                LOG.warn("Dropping unreadable index entry {}/{}: {}", bucket, key, e.getMessage());
                metadata.deleteObject(bucket, key);
                corrupt[0]++;
                return;
            }
            if (!hold(meta)) {
                LOG.warn("Dropping index entry {}/{}: a body file of {} is missing or truncated", bucket, key,
                        meta.bodyExtents());
                metadata.deleteObject(bucket, key);
                missing[0]++;
                return;
            }
            room.update(bucket, key, meta);
            kept[0]++;
            kept[1] += meta.size();
            kept[2] += meta.isInline() ? meta.size() : 0;
        });
        UploadRecords.PartScan parts = uploads.validate(this);
        checksumOldFiles();
        long repaired = repairCounts();
        long orphans = deleteOrphans(counted.keySet()) + deleteOrphanParts(parts.files());
        long fileBytes = counted.values().stream().mapToLong(ExtentRefs.FileEntry::size).sum();
        refs.load(counted, reaches);
        ValidationReport report = new ValidationReport(temp, orphans, missing[0], corrupt[0], repaired, kept[0],
                fileBytes + kept[2] + parts.bytes(), kept[1], (System.nanoTime() - start) / 1_000_000);
        LOG.info("Startup validation: {} objects ({} bytes, {} physical in {} body files) kept; cleaned {} temp files,"
                + " {} orphan files, {} entries with missing bodies, {} corrupt entries; repaired {} reference counts"
                + " in {} ms", report.objects(), report.logicalBytes(), report.bytes(), counted.size(),
                report.tempFilesCleaned(), report.orphanFilesCleaned(), report.missingEntriesCleaned(),
                report.corruptEntriesCleaned(), report.refsRepaired(), report.millis());
        return report;
    }

    /**
     * Counts one holder (an object or a copied part) of the files its extents name, if every one of them is there
     * with its full size; false (nothing counted) otherwise. A file's size and CRC32C come from its stored count, or
     * for an entry written before shared bodies existed, from the entry itself. A file longer than its count says
     * was trimmed by a batch whose truncation a crash cut short: it is truncated now.
     */
    boolean hold(ObjectMeta meta) {
        List<Extent> extents = meta.bodyExtents();
        Map<String, ExtentRefs.FileEntry> found = new HashMap<>();
        for (Extent e : extents) {
            ExtentRefs.FileEntry entry = counted.getOrDefault(e.fileId(), stored.get(e.fileId()));
            if (entry == null && !meta.isShared()) {
                entry = new ExtentRefs.FileEntry(meta.size(), meta.crc32c(), 0, null);
            }
            if (entry == null || e.end() > entry.size() || !hasSize(e.fileId(), entry.size())) {
                return false;
            }
            found.put(e.fileId(), entry);
        }
        found.forEach((fileId, entry) -> counted.merge(fileId, entry.withRefs(1), (a, b) -> a.withRefs(a.refs() + 1)));
        ExtentRefs.reach(extents).forEach((fileId, end) -> reaches.computeIfAbsent(fileId, f -> new TreeMap<>())
                .merge(end, 1, Integer::sum));
        return true;
    }

    /** Whether the file has {@code size} bytes, after completing an interrupted trim if it had more. */
    private boolean hasSize(String fileId, long size) {
        long onDisk = sizeOnDisk(fileId);
        if (onDisk > size) {
            try {
                Trims.truncate(directory.objectFile(fileId), size);
                LOG.info("Completed the trim of body file {}: {} -> {} bytes", fileId, onDisk, size);
                sizes.put(fileId, size);
                return true;
            } catch (IOException e) {
                LOG.warn("Could not trim body file {} to {} bytes: {}", fileId, size, e.toString());
                return false;
            }
        }
        return onDisk == size;
    }

    private long sizeOnDisk(String fileId) {
        return sizes.computeIfAbsent(fileId, id -> {
            try {
                Path file = directory.objectFile(id);
                return Files.isRegularFile(file) ? Files.size(file) : -1L;
            } catch (IOException | IllegalArgumentException e) {
                return -1L;
            }
        });
    }

    /**
     * Computes the chunk checksums of body files recorded before they existed, from the files as they are now (the
     * record is written with the repaired counts). A file that cannot be read keeps none, and its reads fail their
     * check: its holders are dropped when read.
     */
    private void checksumOldFiles() {
        long computed = 0;
        for (Map.Entry<String, ExtentRefs.FileEntry> e : counted.entrySet()) {
            ExtentRefs.FileEntry entry = e.getValue();
            if (entry.sums() == null) {
                try {
                    e.setValue(new ExtentRefs.FileEntry(entry.size(), entry.crc32c(), entry.refs(),
                            ChunkSums.of(directory.objectFile(e.getKey()), entry.size())));
                    computed++;
                } catch (IOException ex) {
                    LOG.warn("Could not compute the chunk checksums of body file {}: {}", e.getKey(), ex.toString());
                }
            }
        }
        if (computed > 0) {
            LOG.info("Computed the chunk checksums of {} body files written before they were kept", computed);
        }
    }

    /** Writes the counts the records imply where the stored ones differ, in one batch. */
    private long repairCounts() {
        long repaired = 0;
        try (MetadataStore.Batch batch = metadata.batch()) {
            for (Map.Entry<String, ExtentRefs.FileEntry> e : counted.entrySet()) {
                if (!e.getValue().equals(stored.get(e.getKey()))) {
                    batch.putFile(e.getKey(), e.getValue().encode());
                    repaired += stored.containsKey(e.getKey()) ? 1 : 0;
                }
            }
            for (String fileId : stored.keySet()) {
                if (!counted.containsKey(fileId)) {
                    batch.deleteFile(fileId);
                    repaired++;
                }
            }
            metadata.write(batch);
        }
        if (repaired > 0) {
            LOG.warn("Startup validation repaired {} reference counts of body files", repaired);
        }
        return repaired;
    }

    static boolean hasSize(Path body, long size) {
        try {
            return Files.isRegularFile(body) && Files.size(body) == size;
        } catch (IOException e) {
            return false;
        }
    }

    private long deleteOrphans(Set<String> referenced) {
        long deleted = 0;
        try (Stream<Path> files = Files.walk(directory.objects(), 2)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (!referenced.contains(file.getFileName().toString())) {
                    Files.delete(file);
                    deleted++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot scan " + directory.objects(), e);
        }
        return deleted;
    }

    /** Part files under uploads/ that no part record points to. */
    private long deleteOrphanParts(Set<Path> kept) {
        long deleted = 0;
        try (Stream<Path> files = Files.list(directory.uploads())) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (!kept.contains(file)) {
                    Files.delete(file);
                    deleted++;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot scan " + directory.uploads(), e);
        }
        return deleted;
    }

    private void flattenLegacyUploads() {
        try {
            int moved = directory.flattenLegacyUploads();
            if (moved > 0) {
                LOG.info("Startup validation moved {} part files of uploads in progress to the flat layout", moved);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move the parts under " + directory.uploads(), e);
        }
    }

    private static long deleteAll(Path dir) {
        long deleted = 0;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                Files.delete(file);
                deleted++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clean " + dir, e);
        }
        return deleted;
    }
}
