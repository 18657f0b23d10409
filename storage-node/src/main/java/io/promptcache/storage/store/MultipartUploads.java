package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Multipart uploads: parts stream in like objects (temp file, digests, capacity reservation) and are kept under
 * {@code uploads/} (named {@code <uploadId>-<fileId>}), or are copied ranges of existing objects (UploadPartCopy)
 * that hold references to the source's body files instead of bytes. Completion of uploaded parts only concatenates
 * them into one new object, committed like any PUT; with a copied part the object is made of extents instead
 * ({@link SharedCompletion}).
 * Records ({@link UploadRecords}) live in the metadata store, so uploads in progress survive restarts. Record changes
 * of one upload are serialized on that upload's lock ({@link UploadLocks}), so uploads of other ids do
 * not wait for them (every prefixed PUT is an upload: under the issue-31 bench one lock for all uploads kept most of
 * the node's busy workers blocked behind a holder that waited for a core; docs/benchmarks.md, "One lock per upload").
 */
public final class MultipartUploads {

    /** S3's minimum size of every part but the last (a copied part is exempt: it costs no bytes). */
    public static final long MIN_PART_BYTES = 5L << 20;
    public static final int MAX_PART_NUMBER = 10_000;

    private final Buckets buckets;
    private final UploadRecords records;
    private final MetadataStore metadata;
    private final ExtentRefs refs;
    private final BodyFiles bodies;
    private final Capacity capacity;
    private final Entries entries;
    private final SharedCompletion shared;
    private final CompletedUploads completed = new CompletedUploads();
    private final UploadLocks locks = new UploadLocks();

    MultipartUploads(Buckets buckets, UploadRecords records, MetadataStore metadata, ExtentRefs refs,
            BodyFiles bodies, Capacity capacity, Entries entries) {
        this.buckets = buckets;
        this.records = records;
        this.metadata = metadata;
        this.refs = refs;
        this.bodies = bodies;
        this.capacity = capacity;
        this.entries = entries;
        this.shared = new SharedCompletion(records, bodies, entries, capacity);
    }

    /** An upload in progress. */
    public record Upload(String bucket, String key, String contentType, Map<String, String> headers,
            Map<String, String> userMetadata, long initiatedMs) {
    }

    /** An upload in progress, with its id (ListMultipartUploads). */
    public record Listed(String uploadId, Upload upload) {
    }

    /**
     * One page of ListMultipartUploads.
     *
     * @param nextKeyMarker the key of the last upload or common prefix listed, when truncated
     * @param nextUploadIdMarker the id of the last upload listed, when truncated and it was an upload
     */
    public record UploadPage(List<Listed> uploads, List<String> commonPrefixes, boolean truncated,
            String nextKeyMarker, String nextUploadIdMarker) {
    }

    /**
     * An upload {@link #abortIdle} aborted: its bucket, key and id, how long no call had touched it, and the bytes
     * its uploaded parts held (copied parts hold none of their own).
     */
    public record Abandoned(String uploadId, String bucket, String key, long idleMs, long bytes) {
    }

    /** A stored part. */
    public record Part(int number, ObjectMeta meta) {
    }

    /** A part named by CompleteMultipartUpload. */
    /**
     * A part a CompleteMultipartUpload names: its number, its ETag, and the checksums the client gives for it
     * ({@code ChecksumCRC32} etc. of the Part element, by lower-case algorithm; none when it gives none): each must be
     * the part's own, as S3 checks them.
     */
    public record PartRef(int number, String etag, Map<String, String> checksums) {

        public PartRef {
            checksums = Map.copyOf(checksums);
        }

        public PartRef(int number, String etag) {
            this(number, etag, Map.of());
        }
    }

    public String create(String bucket, String key, String contentType, Map<String, String> userMetadata) {
        return create(bucket, key, new ObjectHeaders(contentType, Map.of(), userMetadata));
    }

    /** Starts an upload of an object that will have these headers. */
    public String create(String bucket, String key, ObjectHeaders headers) {
        buckets.created(bucket);
        Names.checkKey(key);
        return records.create(new Upload(bucket, key, headers.contentType(), headers.headers(),
                headers.userMetadata(), System.currentTimeMillis()));
    }

    /** The upload, checked to belong to {@code bucket}/{@code key}; {@code NoSuchUpload} otherwise. */
    public Upload upload(String bucket, String key, String uploadId) {
        return records.require(bucket, key, uploadId);
    }

    /** Starts one part; a part uploaded again under the same number replaces the earlier one. */
    public ObjectUpload beginPart(String bucket, String key, String uploadId, int partNumber, long declaredLength) {
        upload(bucket, key, uploadId);
        checkPartNumber(partNumber);
        try {
            return new ObjectUpload(capacity, bodies, (meta, sums, reserved, ram, onDisk) -> commitPart(bucket, key,
                    uploadId, partNumber, meta, reserved), declaredLength, new ObjectHeaders("", Map.of(), Map.of()),
                    Tiers.Sink.FILE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start part " + partNumber, e);
        }
    }

    /**
     * UploadPartCopy: the part is bytes {@code [first, first + count)} of {@code source}, sharing its body files. An
     * inline source's bytes (small) are written to a body file of their own that the part holds, so a copied part is
     * always made of extents. Replaces an earlier part of the same number.
     */
    public ObjectMeta copyPart(String bucket, String key, String uploadId, int partNumber, ObjectMeta source,
            long first, long count) throws IOException {
        upload(bucket, key, uploadId);
        checkPartNumber(partNumber);
        String versionId = DataDirectory.newFileId();
        MessageDigest md5 = Digests.md5();
        md5.update((source.etag() + " " + first + "+" + count + " " + versionId).getBytes(StandardCharsets.UTF_8));
        ExtentRefs.Change change = new ExtentRefs.Change();
        List<Extent> extents;
        long reserved = 0;
        if (source.isInline()) {
            reserved = count;
            capacity.reserve(reserved);
            CRC32C crc = new CRC32C();
            crc.update(source.inline(), (int) first, (int) count);
            try {
                bodies.write(versionId, ByteBuffer.wrap(source.inline(), (int) first, (int) count));
            } catch (IOException | RuntimeException e) {
                capacity.release(reserved);
                throw e;
            }
            change.add(versionId, count, (int) crc.getValue(),
                    ChunkSums.of(ByteBuffer.wrap(source.inline(), (int) first, (int) count)));
            extents = List.of(new Extent(versionId, 0, count));
        } else {
            extents = Extent.slice(source.bodyExtents(), first, count);
            change.retain(extents);
        }
        ObjectMeta part = new ObjectMeta(versionId, count, HexFormat.of().formatHex(md5.digest()), 0,
                System.currentTimeMillis(), "", Map.of(), Map.of(), null, extents);
        try {
            replacePart(bucket, key, uploadId, partNumber, part, change);
        } catch (RuntimeException e) {
            if (reserved > 0) {
                BodyFiles.deleteQuietly(bodies.directory().objectFile(versionId));
                capacity.release(reserved);
            }
            throw e;
        }
        return part;
    }

    /** One page of the uploads in progress in {@code bucket} (see {@link UploadListing#page}). */
    public UploadPage list(String bucket, String prefix, String delimiter, String keyMarker, String uploadIdMarker,
            int max) {
        buckets.created(bucket);
        String p = prefix == null ? "" : prefix;
        List<Listed> all = new ArrayList<>();
        records.forEachUpload(listed -> {
            if (listed.upload().bucket().equals(bucket) && listed.upload().key().startsWith(p)) {
                all.add(listed);
            }
        });
        return UploadListing.page(all, p, delimiter, keyMarker, uploadIdMarker, max);
    }

    public List<Part> parts(String bucket, String key, String uploadId) {
        upload(bucket, key, uploadId);
        return records.parts(uploadId);
    }

    /**
     * Concatenates the named parts into the object and removes the upload; a retry of a completion that succeeded
     * answers the same object ({@link CompletedUploads}).
     */
    public ObjectMeta complete(String bucket, String key, String uploadId, List<PartRef> refs) throws IOException {
        return complete(bucket, key, uploadId, refs, WriteCondition.NONE);
    }

    /**
     * Completes the upload if the object under the key meets {@code condition} (checked before the parts are
     * joined and again at the commit); a failed condition leaves the upload as it was, to be completed or aborted.
     */
    public ObjectMeta complete(String bucket, String key, String uploadId, List<PartRef> refs,
            WriteCondition condition) throws IOException {
        return complete(bucket, key, uploadId, refs, condition, Map.of());
    }

    /** ... and checks the object checksum the Complete claims, if any ({@link CompletionParts#checkClaimed}). */
    public ObjectMeta complete(String bucket, String key, String uploadId, List<PartRef> refs,
            WriteCondition condition, Map<String, String> claimed) throws IOException {
        ObjectMeta again = completed.again(uploadId, bucket, key, entries);
        if (again != null) {
            return again; // a retry of a Complete that succeeded: the same answer
        }
        ObjectMeta meta = join(bucket, key, uploadId, refs, condition, claimed);
        completed.add(uploadId, bucket, key, meta);
        return meta;
    }

    /**
     * Joins the parts as one completion in progress: the sweep of abandoned uploads leaves the upload alone until it
     * ends (a Complete is a call that touches it). A client's AbortMultipartUpload may still come meanwhile, as on
     * S3: if it took the parts before they were read, the completion is {@code NoSuchUpload} (not a missing file).
     */
    private ObjectMeta join(String bucket, String key, String uploadId, List<PartRef> refs, WriteCondition condition,
            Map<String, String> claimed) throws IOException {
        Upload upload;
        synchronized (locks.of(uploadId)) {
            upload = upload(bucket, key, uploadId);
            locks.completionStarted(uploadId);
        }
        try {
            return join(bucket, key, uploadId, upload, refs, condition, claimed);
        } catch (NoSuchFileException e) {
            upload(bucket, key, uploadId); // NoSuchUpload if an abort took the parts
            throw e;
        } finally {
            synchronized (locks.of(uploadId)) {
                locks.completionEnded(uploadId);
            }
        }
    }

    private ObjectMeta join(String bucket, String key, String uploadId, Upload upload, List<PartRef> refs,
            WriteCondition condition, Map<String, String> claimed) throws IOException {
        entries.checkCondition(bucket, key, condition);
        Map<Integer, ObjectMeta> stored = new TreeMap<>();
        records.parts(uploadId).forEach(p -> stored.put(p.number(), p.meta()));
        List<ObjectMeta> chosen = CompletionParts.choose(refs, stored);
        CompletionParts.checkClaimed(claimed, chosen);
        if (chosen.stream().anyMatch(ObjectMeta::isShared)) {
            return shared.complete(bucket, key, uploadId, upload, chosen, condition, locks.of(uploadId));
        }
        long total = chosen.stream().mapToLong(ObjectMeta::size).sum();
        capacity.reserve(total);
        String fileId = DataDirectory.newFileId();
        Path tmp = bodies.directory().partFile(fileId);
        ObjectMeta meta;
        try {
            ChunkSums.Builder sums = new ChunkSums.Builder();
            meta = concatenate(uploadId, chosen, tmp, fileId, total, upload, sums);
            entries.commitPut(bucket, key, meta, sums.build(), total, null, true, condition);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            capacity.release(total);
            throw e;
        }
        abortParts(uploadId);
        return meta;
    }

    public void abort(String bucket, String key, String uploadId) {
        upload(bucket, key, uploadId);
        abortParts(uploadId);
    }

    /**
     * Aborts every upload no call has touched for at least {@code idleMs} at {@code nowMs}, as
     * AbortMultipartUpload would: its last touch is its creation or the last part stored (uploaded or copied); an
     * upload recorded without its creation time (a record older than the time was kept) counts from
     * {@code unknownSinceMs}. Each upload is checked again under its lock, so a part stored meanwhile keeps
     * it, and an upload being completed is left to its completion. A part still streaming into an aborted upload
     * fails at its end ({@code NoSuchUpload}) and its bytes go.
     */
    public List<Abandoned> abortIdle(long idleMs, long nowMs, long unknownSinceMs) {
        List<String> ids = new ArrayList<>();
        records.forEachUpload(listed -> ids.add(listed.uploadId()));
        List<Abandoned> aborted = new ArrayList<>();
        for (String uploadId : ids) {
            synchronized (locks.of(uploadId)) {
                Upload upload = records.find(uploadId);
                if (upload == null || locks.completing(uploadId)) {
                    continue;
                }
                List<Part> parts = records.parts(uploadId);
                long touched = upload.initiatedMs() > 0 ? upload.initiatedMs() : unknownSinceMs;
                for (Part part : parts) {
                    touched = Math.max(touched, part.meta().lastModified());
                }
                if (nowMs - touched >= idleMs) {
                    long bytes = parts.stream().filter(p -> !p.meta().isShared()).mapToLong(p -> p.meta().size())
                            .sum();
                    abortParts(uploadId);
                    aborted.add(new Abandoned(uploadId, upload.bucket(), upload.key(), nowMs - touched, bytes));
                }
            }
        }
        return aborted;
    }

    /**
     * Moves an uploaded part into its upload and records it, under the upload's lock so that an abort (a client's, or
     * the sweep of abandoned uploads) comes wholly before or after: a part of an upload aborted meanwhile is
     * {@code NoSuchUpload}. On failure nothing is released here: the part's {@link ObjectUpload} aborts and releases
     * its whole reservation.
     */
    private void commitPart(String bucket, String key, String uploadId, int number, ObjectMeta meta, long reserved)
            throws IOException {
        synchronized (locks.of(uploadId)) {
            upload(bucket, key, uploadId);
            Path target = bodies.directory().uploadPartFile(uploadId, meta.fileId());
            Files.move(bodies.directory().partFile(meta.fileId()), target, StandardCopyOption.ATOMIC_MOVE);
            try {
                replacePart(bucket, key, uploadId, number, meta, new ExtentRefs.Change());
            } catch (RuntimeException e) {
                BodyFiles.deleteQuietly(target);
                throw e;
            }
            capacity.release(reserved - meta.size());
        }
    }

    /** Writes a part record with the references it holds, releasing those of the part it replaces. */
    private void replacePart(String bucket, String key, String uploadId, int number, ObjectMeta part,
            ExtentRefs.Change change) {
        synchronized (locks.of(uploadId)) {
            upload(bucket, key, uploadId);
            ObjectMeta replaced = records.part(uploadId, number);
            if (replaced != null && replaced.isShared()) {
                change.release(replaced.extents());
            }
            List<ExtentRefs.Freed> freed;
            try (MetadataStore.Batch batch = metadata.batch()) {
                UploadRecords.putPart(batch, uploadId, number, part);
                freed = refs.commit(batch, change);
            }
            entries.free(freed);
            if (replaced != null && !replaced.isShared()) {
                BodyFiles.deleteQuietly(bodies.directory().uploadPartFile(uploadId, replaced.fileId()));
                capacity.release(replaced.size());
            }
        }
    }

    private static void checkPartNumber(int partNumber) {
        if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "Part number must be an integer between 1 and " + MAX_PART_NUMBER + ", got " + partNumber);
        }
    }

    /** Joins the parts into {@code tmp}, feeding {@code sums} with its bytes. */
    private ObjectMeta concatenate(String uploadId, List<ObjectMeta> parts, Path tmp, String fileId, long total,
            Upload upload, ChunkSums.Builder sums) throws IOException {
        CRC32C crc = new CRC32C();
        MessageDigest md5s = Digests.md5();
        ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
        try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (ObjectMeta part : parts) {
                md5s.update(HexFormat.of().parseHex(part.etag()));
                try (FileChannel in = FileChannel.open(bodies.directory().uploadPartFile(uploadId, part.fileId()))) {
                    while (in.read(buffer.clear()) >= 0) {
                        buffer.flip();
                        crc.update(buffer.duplicate());
                        sums.update(buffer);
                        while (buffer.hasRemaining()) {
                            out.write(buffer);
                        }
                    }
                }
            }
            if (bodies.persistent()) {
                out.force(true);
            }
        }
        String etag = HexFormat.of().formatHex(md5s.digest()) + "-" + parts.size();
        return new ObjectMeta(fileId, total, etag, (int) crc.getValue(), System.currentTimeMillis(),
                upload.contentType(), ClientChecksums.with(upload.headers(), ClientChecksums.composite(parts)),
                upload.userMetadata()).withParts(sizes(parts));
    }

    static List<Long> sizes(List<ObjectMeta> parts) {
        return parts.stream().map(ObjectMeta::size).toList();
    }

    /** Removes the upload's records in one batch with the references its copied parts hold, then its files. */
    private void abortParts(String uploadId) {
        synchronized (locks.of(uploadId)) {
            List<Part> parts = records.parts(uploadId);
            ExtentRefs.Change change = new ExtentRefs.Change();
            parts.stream().filter(p -> p.meta().isShared()).forEach(p -> change.release(p.meta().extents()));
            List<ExtentRefs.Freed> freed;
            try (MetadataStore.Batch batch = metadata.batch()) {
                UploadRecords.delete(batch, uploadId, parts);
                freed = refs.commit(batch, change);
            }
            entries.free(freed);
            for (Part part : parts) {
                if (!part.meta().isShared()) {
                    BodyFiles.deleteQuietly(bodies.directory().uploadPartFile(uploadId, part.meta().fileId()));
                    capacity.release(part.meta().size());
                }
            }
        }
    }

    /** The lock under which {@code uploadId}'s records change. */
    Object lockOf(String uploadId) {
        return locks.of(uploadId);
    }
}
