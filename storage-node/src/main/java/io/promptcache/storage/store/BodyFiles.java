package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;

/**
 * Where a body's bytes are put: a write's temporary file ({@code tmp/<fileId>.part}) and its RAM copy, the body file
 * it becomes ({@code objects/}, renamed, fsynced per {@link Durability}), a multipart part's file made a body file (a
 * hard link), the RAM tier of a RAM-only node, and body files deleted. No record is written here: a body placed
 * without its record is an orphan that startup validation removes.
 */
final class BodyFiles {

    private static final Logger LOG = LoggerFactory.getLogger(BodyFiles.class);

    private final DataDirectory directory;
    private final StoreOptions options;
    private final Tiers tiers;

    BodyFiles(DataDirectory directory, StoreOptions options, Tiers tiers) {
        this.directory = directory;
        this.options = options;
        this.tiers = tiers;
    }

    DataDirectory directory() {
        return directory;
    }

    Tiers tiers() {
        return tiers;
    }

    boolean persistent() {
        return options.durability() == Durability.PERSISTENT;
    }

    /** Opens the temporary file of a write in progress (a new file). */
    FileChannel createPart(String fileId) throws IOException {
        return FileChannel.open(directory.partFile(fileId), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    }

    /** Removes the temporary file of an aborted write. */
    void deletePart(String fileId) throws IOException {
        Files.deleteIfExists(directory.partFile(fileId));
    }

    /**
     * Writes {@code bytes} as the body file {@code fileId} (temporary file, fsync per durability, rename): a file
     * no record holds yet, so a crash before its record leaves an orphan for startup validation.
     */
    void write(String fileId, ByteBuffer bytes) throws IOException {
        Path part = directory.partFile(fileId);
        Path target = directory.objectFile(fileId);
        try (FileChannel channel = createPart(fileId)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            if (persistent()) {
                channel.force(true);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(part);
            throw e;
        }
        Files.createDirectories(target.getParent());
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        if (persistent()) {
            DataDirectory.syncDirectory(target.getParent());
        }
    }

    /**
     * Puts a finished write's body in place before its entry is written: the temporary file renamed into
     * {@code objects/} when {@code onDisk} (on a RAM-only node, a completed multipart object's file is loaded into RAM
     * instead), and the RAM copy admitted to the RAM tier (readable as soon as the entry is visible). Takes over
     * {@code ram}, also on failure.
     *
     * @return the body file, whose removal undoes the placement
     */
    Path place(String bucket, String key, String fileId, long size, ByteBuf ram, boolean onDisk) throws IOException {
        Path part = directory.partFile(fileId);
        Path target = directory.objectFile(fileId);
        ByteBuf body = ram;
        boolean fileKept = onDisk;
        try {
            if (onDisk && options.policy() == TierPolicy.RAM_ONLY) {
                body = tiers.load(part, size);
                Files.delete(part);
                fileKept = false;
            } else if (onDisk) {
                Files.createDirectories(target.getParent());
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
                if (persistent()) {
                    DataDirectory.syncDirectory(target.getParent());
                    DataDirectory.syncDirectory(directory.tmp());
                }
            }
        } catch (IOException | RuntimeException e) {
            if (body != null) {
                body.release();
            }
            throw e;
        }
        if (body != null) {
            tiers.admit(bucket, key, fileId, body, fileKept);
        }
        return target;
    }

    /**
     * Makes an uploaded part's file a body file under the same id: a hard link (the part's file stays until its
     * upload's records go), or on a RAM-only node a RAM copy.
     */
    void placePart(String bucket, String key, String uploadId, ObjectMeta part) throws IOException {
        Path source = directory.uploadPartFile(uploadId, part.fileId());
        if (options.policy() == TierPolicy.RAM_ONLY) {
            tiers.admit(bucket, key, part.fileId(), tiers.load(source, part.size()), false);
            return;
        }
        Path target = directory.objectFile(part.fileId());
        Files.createDirectories(target.getParent());
        Files.createLink(target, source);
        if (persistent()) {
            DataDirectory.syncDirectory(target.getParent());
        }
    }

    /** Undoes {@link #placePart}: the body leaves the tiers and its file goes. */
    void unplace(String fileId) {
        tiers.forget(fileId);
        deleteQuietly(directory.objectFile(fileId));
    }

    /** Deletes a body file nothing holds any more (a failure leaves an orphan for startup validation). */
    void delete(String fileId) {
        try {
            Files.deleteIfExists(directory.objectFile(fileId));
        } catch (IOException e) {
            LOG.warn("Could not delete body file {}: {}", fileId, e.toString());
        }
    }

    /** Deletes a file, leaving it to startup validation if that fails. */
    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // startup validation removes what no record holds
        }
    }
}
