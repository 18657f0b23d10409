package io.promptcache.storage.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Reference counts of body files. A referrer is an object entry or a copied part of a multipart upload; each holds
 * one reference to each distinct file its extents name. Counts change only together with the records that cause
 * them, in one atomic RocksDB batch ({@link #commit}), so a crash never leaves a record naming a freed file nor a
 * count without its record; startup validation recounts from the records and repairs any difference. A file is
 * freed (the caller deletes it and drops it from the tiers) when its last reference goes.
 */
final class ExtentRefs {

    /** What is known of one body file. */
    record FileEntry(long size, int crc32c, int refs) {

        byte[] encode() {
            return ByteBuffer.allocate(16).putLong(size).putInt(crc32c).putInt(refs).array();
        }

        static FileEntry decode(byte[] value) {
            if (value.length != 16) {
                throw new IllegalArgumentException("file entry of " + value.length + " bytes");
            }
            ByteBuffer b = ByteBuffer.wrap(value);
            return new FileEntry(b.getLong(), b.getInt(), b.getInt());
        }
    }

    /** A file whose last reference went: the caller deletes it. */
    record Freed(String fileId, long size) {
    }

    /** The reference changes of one batch. */
    static final class Change {

        private final Map<String, FileEntry> added = new LinkedHashMap<>();
        private final Map<String, Integer> deltas = new LinkedHashMap<>();

        /** A new body file, held by the referrer being written. */
        Change add(String fileId, long size, int crc32c) {
            added.put(fileId, new FileEntry(size, crc32c, 1));
            return this;
        }

        /** A new referrer of {@code extents}' files; they must exist. */
        Change retain(List<Extent> extents) {
            Extent.files(extents).forEach(f -> deltas.merge(f, 1, Integer::sum));
            return this;
        }

        /** A referrer of {@code extents}' files goes away. */
        Change release(List<Extent> extents) {
            Extent.files(extents).forEach(f -> deltas.merge(f, -1, Integer::sum));
            return this;
        }
    }

    private final MetadataStore metadata;
    /** Guarded by this; the same counts as the "files" column family. */
    private final Map<String, FileEntry> files = new HashMap<>();

    ExtentRefs(MetadataStore metadata) {
        this.metadata = metadata;
    }

    /** Sets the counts startup validation found (the store is not serving yet). */
    synchronized void load(Map<String, FileEntry> validated) {
        files.clear();
        files.putAll(validated);
    }

    /** The file's entry, or null if no record holds it. */
    synchronized FileEntry get(String fileId) {
        return files.get(fileId);
    }

    /** Files with a reference. */
    synchronized int fileCount() {
        return files.size();
    }

    /**
     * Writes {@code batch} with the counts {@code change} makes, atomically, and applies them in memory.
     * {@code NoSuchKey} (nothing written) if a retained file has no reference left: its source object was deleted
     * since it was read.
     *
     * @return the files that lost their last reference
     */
    synchronized List<Freed> commit(MetadataStore.Batch batch, Change change) {
        Map<String, FileEntry> next = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> d : change.deltas.entrySet()) {
            FileEntry current = change.added.containsKey(d.getKey())
                    ? change.added.get(d.getKey())
                    : files.get(d.getKey());
            if (current == null) {
                throw new S3Exception(S3ErrorCode.NO_SUCH_KEY,
                        "The copy source was deleted while it was being copied; nothing was written.");
            }
            next.put(d.getKey(), new FileEntry(current.size(), current.crc32c(), current.refs() + d.getValue()));
        }
        change.added.forEach(next::putIfAbsent);
        List<Freed> freed = new ArrayList<>();
        for (Map.Entry<String, FileEntry> e : next.entrySet()) {
            if (e.getValue().refs() < 0) {
                throw new IllegalStateException("negative reference count of body file " + e.getKey());
            }
            if (e.getValue().refs() == 0) {
                batch.deleteFile(e.getKey());
                freed.add(new Freed(e.getKey(), e.getValue().size()));
            } else {
                batch.putFile(e.getKey(), e.getValue().encode());
            }
        }
        metadata.write(batch);
        for (Map.Entry<String, FileEntry> e : next.entrySet()) {
            if (e.getValue().refs() == 0) {
                files.remove(e.getKey());
            } else {
                files.put(e.getKey(), e.getValue());
            }
        }
        return freed;
    }
}
