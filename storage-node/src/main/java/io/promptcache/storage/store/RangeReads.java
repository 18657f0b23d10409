package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.Unpooled;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Checked range reads: where the bytes of a range are (RAM or file, per extent), their chunks checked against their
 * CRC32C first with verify-on-read, and an entry whose body is lost or corrupt dropped ({@link Entries#dropIfCurrent})
 * so the read is the miss it now is. Records whole-object reads in {@link RoomOrder}.
 */
final class RangeReads {

    private static final Logger LOG = LoggerFactory.getLogger(RangeReads.class);

    /**
     * Ranges up to this long are sent from the very bytes their check read (pooled off-heap buffers); a longer one
     * is checked, then sent from its file with sendfile (memory stays bounded; a byte rewritten in the file between
     * the check and the send would go out unchecked).
     */
    static final long KEPT_CHECKED_BYTES = 4L << 20;

    private final StoreOptions options;
    private final Tiers tiers;
    private final ExtentRefs refs;
    private final RoomOrder room;
    private final Entries entries;
    private final TierStats stats;
    private final BodyReaders readers;

    RangeReads(StoreOptions options, Tiers tiers, ExtentRefs refs, RoomOrder room, Entries entries, TierStats stats,
            BodyReaders readers) {
        this.readers = readers;
        this.options = options;
        this.tiers = tiers;
        this.refs = refs;
        this.room = room;
        this.entries = entries;
        this.stats = stats;
    }

    /** See {@link ObjectStore#openRange}. */
    List<BodySegment> open(String bucket, String key, ObjectMeta meta, long offset, long length) {
        used(bucket, key, meta, offset, length);
        if (meta.isInline()) {
            return List.of(new BodySegment(ObjectBody.inRam(Unpooled.wrappedBuffer(meta.inline())), offset, length));
        }
        // an object of its own file (every PUT) is read at the range's own offsets: no slicing on the hot path
        List<Extent> extents = meta.isShared()
                ? Extent.slice(meta.extents(), offset, length)
                : List.of(new Extent(meta.fileId(), offset, length));
        boolean keep = length <= KEPT_CHECKED_BYTES;
        List<BodySegment> segments = new ArrayList<>(extents.size());
        for (Extent extent : extents) {
            // the lease first: a file freed from now on is deleted or trimmed only after this read (BodyReaders)
            Runnable lease = readers.lease(extent.fileId());
            ObjectBody body = tiers.open(extent.fileId());
            if (body == null || body.file() == null || !options.verifyOnRead()) {
                if (body == null) {
                    lease.run();
                    segments.forEach(BodySegment::release);
                    return failedRead(bucket, key, meta, null);
                }
                segments.add(new BodySegment(body, extent.offset(), extent.length(), lease));
                continue;
            }
            ChunkSums.Checked checked = check(body.file(), extent, keep);
            if (checked.badChunk() >= 0) {
                lease.run();
                segments.forEach(BodySegment::release);
                return failedRead(bucket, key, meta, "chunk " + checked.badChunk() + " of body file "
                        + extent.fileId() + " does not match its CRC32C");
            }
            segments.add(checked.span() != null
                    ? new BodySegment(ObjectBody.checked(checked.span(), body.file()),
                            extent.offset() - checked.spanStart(),
                            extent.length(), lease)
                    : new BodySegment(body, extent.offset(), extent.length(), lease));
        }
        return segments;
    }

    /** See {@link ObjectStore#used}. */
    void used(String bucket, String key, ObjectMeta meta, long offset, long length) {
        if (offset == 0 && length >= meta.size()) {
            room.used(bucket, key, System.currentTimeMillis());
        } else {
            room.usedInPart(bucket, key, System.currentTimeMillis());
        }
    }

    /**
     * The chunks of {@code extent} in {@code file}, checked against their CRC32C (and kept, see
     * {@link #KEPT_CHECKED_BYTES}). A mismatch is checked once more against the file's record if the record changed
     * meanwhile (a trim records the shorter file first and truncates it {@link Trims#DELAY} later). A file that has
     * no checksums on record, is gone or cannot be read fails as chunk 0.
     */
    private ChunkSums.Checked check(Path file, Extent extent, boolean keep) {
        ExtentRefs.FileEntry entry = refs.get(extent.fileId());
        ChunkSums.Checked checked = check(file, extent, keep, entry);
        ExtentRefs.FileEntry now = checked.badChunk() < 0 ? entry : refs.get(extent.fileId());
        return now == entry ? checked : check(file, extent, keep, now);
    }

    private ChunkSums.Checked check(Path file, Extent extent, boolean keep, ExtentRefs.FileEntry entry) {
        if (entry == null) {
            // no longer on record: deleted since the read opened it (for room, or by a DELETE); the read starts over
            LOG.debug("Body file {} was deleted during a read", extent.fileId());
            return new ChunkSums.Checked(null, 0, 0);
        }
        if (entry.sums() == null) {
            LOG.warn("Body file {} has no checksums on record", extent.fileId());
            return new ChunkSums.Checked(null, 0, 0);
        }
        try {
            return entry.sums().check(file, entry.size(), extent.offset(), extent.length(), keep);
        } catch (IOException e) {
            if (refs.get(extent.fileId()) != null) {
                // off the record, it was deleted during the read: the caller checks it again without one (above)
                LOG.warn("Body file {} cannot be read: {}", extent.fileId(), e.toString());
            }
            return new ChunkSums.Checked(null, 0, 0);
        }
    }

    private List<BodySegment> failedRead(String bucket, String key, ObjectMeta meta, String corruption) {
        if (corruption == null) {
            if (!entries.dropIfCurrent(bucket, key, meta.fileId())) {
                return null;
            }
            throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                    + " (its body was lost; the entry has been removed)");
        }
        if (!entries.dropIfCurrent(bucket, key, meta.fileId())) {
            // replaced or deleted meanwhile (a trimmed or deleted file reads short): read it again
            return null;
        }
        stats.corruptOnRead.increment();
        LOG.error("Removed {}/{}: {} (the bytes on disk changed since they were written)", bucket, key, corruption);
        throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                + " (its stored body failed its checksum and was removed; store the object again)");
    }
}
