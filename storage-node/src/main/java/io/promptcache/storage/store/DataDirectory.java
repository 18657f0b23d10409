package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * Layout of a node's data directory. Body files are named by random ids, never by keys.
 *
 * <pre>
 * data/
 *   meta/              RocksDB (buckets, object entries)
 *   tmp/&lt;id&gt;.part     bodies being written; removed at startup
 *   objects/ab/&lt;id&gt;   committed bodies, ab = first two characters of the id
 *   uploads/&lt;upload&gt;-&lt;id&gt;  parts of multipart uploads in progress (flat: no directory per upload)
 * </pre>
 */
final class DataDirectory {

    static final String PART_SUFFIX = ".part";
    private static final String UPLOAD_PART_SEPARATOR = "-";

    private final Path root;
    private final Path meta;
    private final Path tmp;
    private final Path objects;
    private final Path uploads;
    /** Whether the directory held no metadata before (the first start on it). */
    private final boolean fresh;

    DataDirectory(Path root) {
        this.root = root.toAbsolutePath().normalize();
        this.meta = this.root.resolve("meta");
        this.fresh = !Files.isDirectory(meta);
        this.tmp = this.root.resolve("tmp");
        this.objects = this.root.resolve("objects");
        this.uploads = this.root.resolve("uploads");
        try {
            Files.createDirectories(uploads);
            Files.createDirectories(meta);
            Files.createDirectories(tmp);
            Files.createDirectories(objects);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory " + this.root, e);
        }
    }

    Path root() {
        return root;
    }

    /** True on the first start on this directory (no metadata existed before it was opened). */
    boolean fresh() {
        return fresh;
    }

    /** Left by a clean stop (the writer drained), consumed by the next start. */
    Path cleanShutdownMarker() {
        return root.resolve("clean-shutdown");
    }

    Path meta() {
        return meta;
    }

    Path tmp() {
        return tmp;
    }

    Path objects() {
        return objects;
    }

    Path uploads() {
        return uploads;
    }

    /**
     * A committed part of a multipart upload, {@code uploads/<uploadId>-<fileId>}: one flat directory, as a directory
     * per upload cost every prefixed PUT a mkdir and an rmdir in {@code uploads/} (half the busy node workers' stack
     * samples under the issue-31 bench, docs/benchmarks.md "Flat upload parts").
     */
    Path uploadPartFile(String uploadId, String fileId) {
        return uploads.resolve(uploadId + UPLOAD_PART_SEPARATOR + fileId);
    }

    /**
     * Moves the part files of the layout before flat parts (2026-12-01: {@code uploads/<uploadId>/<fileId>}) to
     * their flat names and removes the emptied directories, so the uploads in progress at an upgrade keep their
     * parts; the files moved. A directory holding anything but files (nothing a node wrote) is left as it is.
     */
    int flattenLegacyUploads() throws IOException {
        int moved = 0;
        List<Path> legacy;
        try (Stream<Path> entries = Files.list(uploads)) {
            legacy = entries.filter(Files::isDirectory).toList();
        }
        for (Path upload : legacy) {
            try (Stream<Path> files = Files.list(upload)) {
                for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                    Files.move(file, uploadPartFile(upload.getFileName().toString(), file.getFileName().toString()),
                            StandardCopyOption.ATOMIC_MOVE);
                    moved++;
                }
            }
            try {
                Files.delete(upload);
            } catch (DirectoryNotEmptyException e) {
                // something no node wrote: left where it is, and never read
            }
        }
        return moved;
    }

    /** A fresh random file id: 32 lower-case hex characters. */
    static String newFileId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /**
     * A fresh upload id, in the same form as a file id but ordered by creation: the time in milliseconds (12 hex
     * characters), then 20 random ones. ListMultipartUploads orders the uploads of one key by initiation, and S3's
     * upload-id marker resumes after the ids lexicographically greater: with these ids both orders are the same.
     */
    static String newUploadId() {
        return String.format("%012x", System.currentTimeMillis()) + newFileId().substring(12);
    }

    /** True for names {@link #newFileId()} and {@link #newUploadId()} make (also guards upload ids taken from requests). */
    static boolean isFileId(String name) {
        return name != null && name.length() == 32
                && name.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }

    Path partFile(String fileId) {
        return tmp.resolve(fileId + PART_SUFFIX);
    }

    Path objectFile(String fileId) {
        return objects.resolve(fileId.substring(0, 2)).resolve(fileId);
    }

    /** fsyncs a directory so a rename or delete in it survives power loss. */
    static void syncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
