package io.promptcache.storage.store;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Reference counts of body files. A referrer is an object entry or a copied part of a multipart upload; each holds
 * one reference to each distinct file its extents name. Counts change only together with the records that cause
 * them, in one atomic RocksDB batch ({@link #commit}), so a crash never leaves a record naming a freed file nor a
 * count without its record; startup validation recounts from the records and repairs any difference. A file is
 * freed (the caller deletes it and drops it from the tiers) when its last reference goes.
 *
 * <p>
 * A file is also <em>trimmed</em> when the referrer that used its furthest bytes goes: a continuation shares only the
 * first bytes of its parent's file, so once the parent is deleted the file's tail is held by nobody. The batch then
 * records the shorter size (and the CRC32C and chunk checksums of the bytes kept), and the caller truncates the file after it; a crash in
 * between leaves a file longer than its record, which startup validation truncates. Files that are not (only) on
 * disk are not trimmed ({@link Trimmer}). How far each referrer reads into each file is kept in memory only
 * (recounted from the records at startup, like the counts).
 */
final class ExtentRefs {

    /**
     * What is known of one body file: its size, the CRC32C of all of it, and the CRC32C of each of its chunks
     * ({@code sums}; null only in a record written before chunk checksums existed, until startup validation computes
     * them).
     */
    record FileEntry(long size, int crc32c, int refs, ChunkSums sums) {

        FileEntry withRefs(int count) {
            return new FileEntry(size, crc32c, count, sums);
        }

        byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(16 + (sums == null ? 0 : sums.encodedLength()));
            b.putLong(size).putInt(crc32c).putInt(refs);
            if (sums != null) {
                sums.encode(b);
            }
            return b.array();
        }

        static FileEntry decode(byte[] value) {
            if (value.length < 16 || (value.length > 16 && value.length < 20)) {
                throw new IllegalArgumentException("file entry of " + value.length + " bytes");
            }
            ByteBuffer b = ByteBuffer.wrap(value);
            return new FileEntry(b.getLong(), b.getInt(), b.getInt(), b.hasRemaining() ? ChunkSums.decode(b) : null);
        }
    }

    /**
     * Bytes a batch freed in one file: all of them ({@code keep} 0: the caller deletes the file), or its tail beyond
     * {@code keep} (the caller truncates it).
     */
    record Freed(String fileId, long bytes, long keep) {

        boolean deleted() {
            return keep == 0;
        }
    }

    /** Whether and how a file can be trimmed; answers under the references' lock, so it must not block long. */
    interface Trimmer {

        /**
         * The record of the first {@code length} bytes of the file recorded as {@code current} (their CRC32C and
         * chunk checksums), or empty when it must not be trimmed now.
         */
        Optional<FileEntry> prefix(String fileId, FileEntry current, long length);
    }

    /** The reference changes of one batch. */
    static final class Change {

        private final Map<String, FileEntry> added = new LinkedHashMap<>();
        /** Per file: how far the referrers read into it (their furthest extent end) -> count added or removed. */
        private final Map<String, Map<Long, Integer>> deltas = new LinkedHashMap<>();

        /** A new body file, held whole by the referrer being written. */
        Change add(String fileId, long size, int crc32c, ChunkSums sums) {
            added.put(fileId, new FileEntry(size, crc32c, 1, sums));
            return count(fileId, size, 1);
        }

        /** A new referrer of {@code extents}' files; they must exist. */
        Change retain(List<Extent> extents) {
            reach(extents).forEach((f, end) -> count(f, end, 1));
            return this;
        }

        /** A referrer of {@code extents}' files goes away. */
        Change release(List<Extent> extents) {
            reach(extents).forEach((f, end) -> count(f, end, -1));
            return this;
        }

        private Change count(String fileId, long end, int delta) {
            deltas.computeIfAbsent(fileId, f -> new TreeMap<>()).merge(end, delta, Integer::sum);
            return this;
        }
    }

    /** Per distinct file of {@code extents}: the furthest byte they read in it (exclusive). */
    static Map<String, Long> reach(List<Extent> extents) {
        Map<String, Long> reach = new LinkedHashMap<>();
        for (Extent e : extents) {
            reach.merge(e.fileId(), e.end(), Math::max);
        }
        return reach;
    }

    /** Whether a new referrer in {@code delta} reads past {@code size} (the file was trimmed since it was read). */
    private static boolean reachesBeyond(Map<Long, Integer> delta, long size) {
        return delta.entrySet().stream().anyMatch(r -> r.getValue() > 0 && r.getKey() > size);
    }

    private final MetadataStore metadata;
    private Trimmer trimmer = (fileId, length, refs) -> Optional.empty();
    /** Guarded by this; the same counts as the "files" column family. */
    private final Map<String, FileEntry> files = new HashMap<>();
    /** Guarded by this: per file, how far its referrers read (end -> referrers). */
    private final Map<String, TreeMap<Long, Integer>> reaches = new HashMap<>();

    ExtentRefs(MetadataStore metadata) {
        this.metadata = metadata;
    }

    /** How files are trimmed (none until set). */
    synchronized void trimWith(Trimmer trimmer) {
        this.trimmer = trimmer;
    }

    /** Sets the counts and reaches startup validation found (the store is not serving yet). */
    synchronized void load(Map<String, FileEntry> validated, Map<String, TreeMap<Long, Integer>> validatedReaches) {
        files.clear();
        files.putAll(validated);
        reaches.clear();
        validatedReaches.forEach((f, r) -> reaches.put(f, new TreeMap<>(r)));
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
     * Bytes of {@code fileId} that would be freed if one referrer reading up to {@code end} went: the whole file if
     * it is the last, else the tail no other referrer reads (0 when one reads as far).
     */
    synchronized long freedWithout(String fileId, long end) {
        FileEntry entry = files.get(fileId);
        TreeMap<Long, Integer> reach = reaches.get(fileId);
        if (entry == null || reach == null) {
            return 0;
        }
        if (entry.refs() == 1) {
            return entry.size();
        }
        if (end < reach.lastKey() || reach.getOrDefault(end, 0) != 1) {
            return 0;
        }
        Long next = reach.lowerKey(end);
        return next == null ? 0 : Math.max(0, entry.size() - next);
    }

    /**
     * Writes {@code batch} with the counts {@code change} makes, atomically, and applies them in memory.
     * {@code NoSuchKey} (nothing written) if a retained file has no reference left, or was trimmed short of the
     * bytes retained: its source object was deleted since it was read.
     *
     * @return the files that lost their last reference or their unread tail
     */
    synchronized List<Freed> commit(MetadataStore.Batch batch, Change change) {
        Map<String, FileEntry> next = new LinkedHashMap<>();
        Map<String, TreeMap<Long, Integer>> nextReaches = new LinkedHashMap<>();
        for (Map.Entry<String, Map<Long, Integer>> d : change.deltas.entrySet()) {
            String fileId = d.getKey();
            boolean added = change.added.containsKey(fileId);
            FileEntry current = added ? change.added.get(fileId) : files.get(fileId);
            if (current == null || (!added && reachesBeyond(d.getValue(), current.size()))) {
                throw new S3Exception(S3ErrorCode.NO_SUCH_KEY,
                        "The copy source was deleted while it was being copied; nothing was written.");
            }
            TreeMap<Long, Integer> reach = added
                    ? new TreeMap<>()
                    : new TreeMap<>(reaches.getOrDefault(fileId,
                            new TreeMap<>()));
            for (Map.Entry<Long, Integer> r : d.getValue().entrySet()) {
                int count = reach.getOrDefault(r.getKey(), 0) + r.getValue();
                if (count < 0) {
                    throw new IllegalStateException("negative reference count of body file " + fileId);
                }
                if (count == 0) {
                    reach.remove(r.getKey());
                } else {
                    reach.put(r.getKey(), count);
                }
            }
            // one reference per referrer: the count is the referrers' reaches, summed
            int refs = reach.values().stream().mapToInt(Integer::intValue).sum();
            next.put(fileId, current.withRefs(refs));
            nextReaches.put(fileId, reach);
        }
        List<Freed> freed = new ArrayList<>();
        for (Map.Entry<String, FileEntry> e : next.entrySet()) {
            FileEntry entry = e.getValue();
            if (entry.refs() == 0) {
                batch.deleteFile(e.getKey());
                freed.add(new Freed(e.getKey(), entry.size(), 0));
                continue;
            }
            long furthest = nextReaches.get(e.getKey()).lastKey();
            if (furthest < entry.size()) {
                Optional<FileEntry> kept = trimmer.prefix(e.getKey(), entry, furthest);
                if (kept.isPresent()) {
                    freed.add(new Freed(e.getKey(), entry.size() - furthest, furthest));
                    entry = kept.get();
                    e.setValue(entry);
                }
            }
            batch.putFile(e.getKey(), entry.encode());
        }
        metadata.write(batch);
        for (Map.Entry<String, FileEntry> e : next.entrySet()) {
            if (e.getValue().refs() == 0) {
                files.remove(e.getKey());
                reaches.remove(e.getKey());
            } else {
                files.put(e.getKey(), e.getValue());
                reaches.put(e.getKey(), nextReaches.get(e.getKey()));
            }
        }
        return freed;
    }
}
