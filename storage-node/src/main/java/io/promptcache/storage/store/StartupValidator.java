package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 004's {@code validate_index}, run before the node serves: removes partial bodies, drops index entries
 * whose body is missing, has the wrong size or cannot be decoded, and deletes body files no entry points to.
 * Afterwards every index entry has its complete body and every body file has its entry.
 */
final class StartupValidator {

    private static final Logger LOG = LoggerFactory.getLogger(StartupValidator.class);

    private final DataDirectory directory;
    private final MetadataStore metadata;
    private final MultipartUploads multipart;

    StartupValidator(DataDirectory directory, MetadataStore metadata, MultipartUploads multipart) {
        this.directory = directory;
        this.metadata = metadata;
        this.multipart = multipart;
    }

    ValidationReport run() {
        long start = System.nanoTime();
        long temp = deleteAll(directory.tmp());
        Set<String> referenced = new HashSet<>();
        long[] missing = {0};
        long[] corrupt = {0};
        long[] kept = {0, 0};
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
            Path body = directory.objectFile(meta.fileId());
            if (!meta.isInline() && !hasSize(body, meta.size())) {
                LOG.warn("Dropping index entry {}/{}: body {} missing or truncated", bucket, key, meta.fileId());
                metadata.deleteObject(bucket, key);
                missing[0]++;
                return;
            }
            referenced.add(meta.fileId());
            kept[0]++;
            kept[1] += meta.size();
        });
        long orphans = deleteOrphans(referenced);
        MultipartUploads.PartScan parts = multipart.validate();
        orphans += deleteOrphanParts(parts.files());
        ValidationReport report = new ValidationReport(temp, orphans, missing[0], corrupt[0], kept[0],
                kept[1] + parts.bytes(), (System.nanoTime() - start) / 1_000_000);
        LOG.info("Startup validation: {} objects ({} bytes) kept; cleaned {} temp files, {} orphan files, "
                + "{} entries with missing bodies, {} corrupt entries in {} ms", report.objects(), report.bytes(),
                report.tempFilesCleaned(), report.orphanFilesCleaned(), report.missingEntriesCleaned(),
                report.corruptEntriesCleaned(), report.millis());
        return report;
    }

    static boolean hasSize(Path body, long size) {
        try {
            return Files.isRegularFile(body) && Files.size(body) == size;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the file holds the body's bytes: its size and CRC32C match the metadata. */
    static boolean hasChecksum(Path body, ObjectMeta meta) {
        CRC32C crc = new CRC32C();
        // a heap buffer: with verify-on-read this runs per GET, where a fresh direct buffer each time would churn
        ByteBuffer buffer = ByteBuffer.allocate(256 << 10);
        long size = 0;
        try (FileChannel channel = FileChannel.open(body, StandardOpenOption.READ)) {
            int n;
            while ((n = channel.read(buffer.clear())) >= 0) {
                crc.update(buffer.flip());
                size += n;
            }
        } catch (IOException e) {
            return false;
        }
        return size == meta.size() && (int) crc.getValue() == meta.crc32c();
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

    /** Part files under uploads/ that no part record points to (and upload directories left empty). */
    private long deleteOrphanParts(Set<Path> kept) {
        long deleted = 0;
        try (Stream<Path> files = Files.walk(directory.uploads(), 2)) {
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
