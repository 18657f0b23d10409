package io.promptcache.storage.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Multipart uploads: parts stream in like objects (temp file, digests, capacity reservation) and are kept under
 * {@code uploads/<uploadId>/}, or are copied ranges of existing objects (UploadPartCopy) that hold references to the
 * source's body files instead of bytes. Completion of uploaded parts only concatenates them into one new object,
 * committed like any PUT; with a copied part the object is made of extents instead: the copied ranges, shared, and
 * the uploaded parts' files, linked into {@code objects/} (no byte is copied). Records live in the metadata store,
 * so uploads in progress survive restarts. Record changes of one upload are serialized on this object.
 */
public final class MultipartUploads {

    /** S3's minimum size of every part but the last (a copied part is exempt: it costs no bytes). */
    public static final long MIN_PART_BYTES = 5L << 20;
    public static final int MAX_PART_NUMBER = 10_000;

    private final ObjectStore store;
    private final MetadataStore metadata;
    private final DataDirectory directory;
    private final CompletedUploads completed = new CompletedUploads();

    MultipartUploads(ObjectStore store, MetadataStore metadata, DataDirectory directory) {
        this.store = store;
        this.metadata = metadata;
        this.directory = directory;
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

    /** A stored part. */
    public record Part(int number, ObjectMeta meta) {
    }

    /** A part named by CompleteMultipartUpload. */
    public record PartRef(int number, String etag) {
    }

    public String create(String bucket, String key, String contentType, Map<String, String> userMetadata) {
        return create(bucket, key, new ObjectHeaders(contentType, Map.of(), userMetadata));
    }

    /** Starts an upload of an object that will have these headers. */
    public String create(String bucket, String key, ObjectHeaders headers) {
        store.bucketCreated(bucket);
        Names.checkKey(key);
        String uploadId = DataDirectory.newUploadId();
        try {
            Files.createDirectories(directory.uploads().resolve(uploadId));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the upload directory", e);
        }
        metadata.putUploadEntry(uploadId, encode(new Upload(bucket, key, headers.contentType(), headers.headers(),
                headers.userMetadata(), System.currentTimeMillis())));
        return uploadId;
    }

    /** The upload, checked to belong to {@code bucket}/{@code key}; {@code NoSuchUpload} otherwise. */
    public Upload upload(String bucket, String key, String uploadId) {
        byte[] value = DataDirectory.isFileId(uploadId) ? metadata.getUploadEntry(uploadId) : null;
        Upload upload = value == null ? null : decode(value);
        if (upload == null || !upload.bucket().equals(bucket) || !upload.key().equals(key)) {
            throw new S3Exception(S3ErrorCode.NO_SUCH_UPLOAD,
                    "The specified multipart upload does not exist: " + uploadId);
        }
        return upload;
    }

    /** Starts one part; a part uploaded again under the same number replaces the earlier one. */
    public ObjectUpload beginPart(String bucket, String key, String uploadId, int partNumber, long declaredLength) {
        upload(bucket, key, uploadId);
        checkPartNumber(partNumber);
        try {
            return new ObjectUpload(store, (meta, sums, reserved, ram, onDisk) -> commitPart(bucket, key, uploadId,
                    partNumber, meta, reserved), declaredLength, new ObjectHeaders("", Map.of(), Map.of()),
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
            store.reserve(reserved);
            CRC32C crc = new CRC32C();
            crc.update(source.inline(), (int) first, (int) count);
            try {
                store.writeBodyFile(versionId, ByteBuffer.wrap(source.inline(), (int) first, (int) count));
            } catch (IOException | RuntimeException e) {
                store.release(reserved);
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
                deleteQuietly(directory.objectFile(versionId));
                store.release(reserved);
            }
            throw e;
        }
        return part;
    }

    /**
     * The uploads in progress in {@code bucket}, by key then initiation (the order of their ids), after the markers ({@code keyMarker}
     * alone: keys after it; with {@code uploadIdMarker}: also the later uploads of that key), with the keys under
     * {@code prefix} rolled up at {@code delimiter}; at most {@code max} entries.
     */
    public UploadPage list(String bucket, String prefix, String delimiter, String keyMarker, String uploadIdMarker,
            int max) {
        store.bucketCreated(bucket);
        String p = prefix == null ? "" : prefix;
        List<Listed> all = new ArrayList<>();
        metadata.scanUploadEntries("", (id, value) -> {
            if (id.indexOf('/') < 0) {
                Upload upload = decode(value);
                if (upload.bucket().equals(bucket) && upload.key().startsWith(p)) {
                    all.add(new Listed(id, upload));
                }
            }
        });
        all.sort(Comparator.comparing((Listed l) -> l.upload().key()).thenComparing(Listed::uploadId));
        int from = keyMarker == null ? 0 : start(all, p, delimiter, keyMarker, uploadIdMarker);
        List<Listed> uploads = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastKey = null;
        String lastId = null;
        for (int i = from; i < all.size(); i++) {
            Listed listed = all.get(i);
            String rolledUp = ListPage.rollUp(listed.upload().key(), p, delimiter);
            if (rolledUp != null && !prefixes.isEmpty() && prefixes.get(prefixes.size() - 1).equals(rolledUp)) {
                continue;
            }
            if (uploads.size() + prefixes.size() >= max) {
                return new UploadPage(uploads, prefixes, true, lastKey, lastId);
            }
            if (rolledUp != null) {
                prefixes.add(rolledUp);
                lastKey = rolledUp;
                lastId = null;
            } else {
                uploads.add(listed);
                lastKey = listed.upload().key();
                lastId = listed.uploadId();
            }
        }
        return new UploadPage(uploads, prefixes, false, null, null);
    }

    /**
     * The index of the first upload after the markers in {@code all} (sorted): with an upload-id marker, the first
     * upload of {@code keyMarker} with a greater id (as S3 defines it), else the first upload after that key and
     * after the common prefix it rolls up to.
     */
    private static int start(List<Listed> all, String prefix, String delimiter, String keyMarker,
            String uploadIdMarker) {
        String resume = uploadIdMarker == null ? ListPage.resumeAfter(keyMarker, prefix, delimiter) : keyMarker;
        int from = 0;
        while (from < all.size() && (all.get(from).upload().key().compareTo(resume) < 0
                || all.get(from).upload().key().equals(resume)
                        && (uploadIdMarker == null || all.get(from).uploadId().compareTo(uploadIdMarker) <= 0))) {
            from++;
        }
        return from;
    }

    public List<Part> parts(String bucket, String key, String uploadId) {
        upload(bucket, key, uploadId);
        return partsOf(uploadId);
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
        ObjectMeta again = completed.again(uploadId, bucket, key, store);
        if (again != null) {
            return again; // a retry of a Complete that succeeded: the same answer
        }
        ObjectMeta meta = join(bucket, key, uploadId, refs, condition);
        completed.add(uploadId, bucket, key, meta);
        return meta;
    }

    private ObjectMeta join(String bucket, String key, String uploadId, List<PartRef> refs, WriteCondition condition)
            throws IOException {
        Upload upload = upload(bucket, key, uploadId);
        store.checkCondition(bucket, key, condition);
        Map<Integer, ObjectMeta> stored = new TreeMap<>();
        partsOf(uploadId).forEach(p -> stored.put(p.number(), p.meta()));
        List<ObjectMeta> chosen = choose(refs, stored);
        if (chosen.stream().anyMatch(ObjectMeta::isShared)) {
            return completeShared(bucket, key, uploadId, upload, chosen, condition);
        }
        long total = chosen.stream().mapToLong(ObjectMeta::size).sum();
        store.reserve(total);
        String fileId = DataDirectory.newFileId();
        Path tmp = directory.partFile(fileId);
        ObjectMeta meta;
        try {
            ChunkSums.Builder sums = new ChunkSums.Builder();
            meta = concatenate(uploadId, chosen, tmp, fileId, total, upload, sums);
            store.commit(bucket, key, meta, sums.build(), total, null, true, condition);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            store.release(total);
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
     * Completes an upload with copied parts into an object of extents: the uploaded parts' files are linked into
     * {@code objects/} (on a RAM-only node, loaded into RAM), then one batch writes the object, its references and
     * the removal of every part record; nothing is visible before it, and a crash before it leaves only orphan links.
     */
    private ObjectMeta completeShared(String bucket, String key, String uploadId, Upload upload,
            List<ObjectMeta> chosen, WriteCondition condition) throws IOException {
        MessageDigest md5s = Digests.md5();
        ExtentRefs.Change change = new ExtentRefs.Change();
        List<Extent> extents = new ArrayList<>();
        List<Extent> shared = new ArrayList<>();
        List<String> placed = new ArrayList<>();
        Runnable undo = () -> placed.forEach(this::unplace);
        // the uploaded parts' chunk checksums, read from their files before the lock (a part records only its CRC32C)
        Map<String, ChunkSums> sums = new HashMap<>();
        for (ObjectMeta part : chosen) {
            if (!part.isShared()) {
                sums.put(part.fileId(), ChunkSums.of(directory.uploadPartFile(uploadId, part.fileId()), part.size()));
            }
        }
        synchronized (this) {
            upload(bucket, key, uploadId);
            try {
                for (ObjectMeta part : chosen) {
                    md5s.update(HexFormat.of().parseHex(part.etag()));
                    if (part.isShared()) {
                        extents.addAll(part.extents());
                        shared.addAll(part.extents());
                    } else {
                        place(bucket, key, uploadId, part);
                        placed.add(part.fileId());
                        extents.add(new Extent(part.fileId(), 0, part.size()));
                        change.add(part.fileId(), part.size(), part.crc32c(), sums.get(part.fileId()));
                    }
                }
            } catch (IOException | RuntimeException e) {
                undo.run();
                throw e;
            }
            change.retain(shared);
            List<Part> all = partsOf(uploadId);
            all.stream().filter(p -> p.meta().isShared()).forEach(p -> change.release(p.meta().extents()));
            ObjectMeta meta = new ObjectMeta(DataDirectory.newFileId(), extents.stream().mapToLong(Extent::length)
                    .sum(), HexFormat.of().formatHex(md5s.digest()) + "-" + chosen.size(), 0,
                    System.currentTimeMillis(), upload.contentType(), ClientChecksums.with(upload.headers(),
                            ClientChecksums.composite(chosen)),
                    upload.userMetadata(), null,
                    merge(extents), sizes(chosen));
            store.install(bucket, key, new ObjectStore.Install(meta, change, batch -> {
                all.forEach(p -> batch.deleteUploadEntry(partKey(uploadId, p.number())));
                batch.deleteUploadEntry(uploadId);
            }, 0, 0, condition), undo);
            for (Part p : all) {
                if (!p.meta().isShared()) {
                    // a chosen part's bytes now belong to the object's file (the link); the others are freed
                    deleteQuietly(directory.uploadPartFile(uploadId, p.meta().fileId()));
                    if (!placed.contains(p.meta().fileId())) {
                        store.release(p.meta().size());
                    }
                }
            }
            deleteQuietly(directory.uploads().resolve(uploadId));
            return meta;
        }
    }

    /** Makes an uploaded part's file a body file under the same id: a hard link, or on a RAM-only node a RAM copy. */
    private void place(String bucket, String key, String uploadId, ObjectMeta part) throws IOException {
        Path source = directory.uploadPartFile(uploadId, part.fileId());
        if (store.options().policy() == TierPolicy.RAM_ONLY) {
            store.tiers().admit(bucket, key, part.fileId(), store.tiers().load(source, part.size()), false);
            return;
        }
        Path target = directory.objectFile(part.fileId());
        Files.createDirectories(target.getParent());
        Files.createLink(target, source);
        if (store.durability() == Durability.PERSISTENT) {
            DataDirectory.syncDirectory(target.getParent());
        }
    }

    private void unplace(String fileId) {
        store.tiers().forget(fileId);
        deleteQuietly(directory.objectFile(fileId));
    }

    /** Adjacent runs of one file become one extent (consecutive copied ranges of one source). */
    private static List<Extent> merge(List<Extent> extents) {
        List<Extent> out = new ArrayList<>();
        for (Extent e : extents) {
            Extent last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.fileId().equals(e.fileId()) && last.end() == e.offset()) {
                out.set(out.size() - 1, new Extent(e.fileId(), last.offset(), last.length() + e.length()));
            } else if (e.length() > 0) {
                out.add(e);
            }
        }
        return out;
    }

    /** What startup validation found under {@code uploads/}: bytes and files of the parts that are kept. */
    record PartScan(long bytes, Set<Path> files) {
    }

    /**
     * Drops part records whose file is missing or truncated, or whose copied extents are (a copied part is counted
     * as a holder of the source's files); returns the uploaded parts kept.
     */
    PartScan validate(StartupValidator references) {
        long[] bytes = {0};
        Set<Path> files = new HashSet<>();
        metadata.scanUploadEntries("", (entryKey, value) -> {
            int slash = entryKey.indexOf('/');
            if (slash < 0) {
                return;
            }
            ObjectMeta part = ObjectMeta.decode(value);
            Path file = directory.uploadPartFile(entryKey.substring(0, slash), part.fileId());
            if (part.isShared()) {
                if (!references.hold(part)) {
                    metadata.deleteUploadEntry(entryKey);
                }
            } else if (StartupValidator.hasSize(file, part.size())) {
                bytes[0] += part.size();
                files.add(file);
            } else {
                metadata.deleteUploadEntry(entryKey);
            }
        });
        return new PartScan(bytes[0], files);
    }

    private void commitPart(String bucket, String key, String uploadId, int number, ObjectMeta meta, long reserved)
            throws IOException {
        Path target = directory.uploadPartFile(uploadId, meta.fileId());
        Files.move(directory.partFile(meta.fileId()), target, StandardCopyOption.ATOMIC_MOVE);
        store.release(reserved - meta.size());
        try {
            replacePart(bucket, key, uploadId, number, meta, new ExtentRefs.Change());
        } catch (RuntimeException e) {
            deleteQuietly(target);
            store.release(meta.size());
            throw e;
        }
    }

    /** Writes a part record with the references it holds, releasing those of the part it replaces. */
    private synchronized void replacePart(String bucket, String key, String uploadId, int number, ObjectMeta part,
            ExtentRefs.Change change) {
        upload(bucket, key, uploadId);
        String entry = partKey(uploadId, number);
        byte[] previous = metadata.getUploadEntry(entry);
        ObjectMeta replaced = previous == null ? null : ObjectMeta.decode(previous);
        if (replaced != null && replaced.isShared()) {
            change.release(replaced.extents());
        }
        List<ExtentRefs.Freed> freed;
        try (MetadataStore.Batch batch = metadata.batch()) {
            batch.putUploadEntry(entry, part.encode());
            freed = store.refs().commit(batch, change);
        }
        store.free(freed);
        if (replaced != null && !replaced.isShared()) {
            deleteQuietly(directory.uploadPartFile(uploadId, replaced.fileId()));
            store.release(replaced.size());
        }
    }

    private static void checkPartNumber(int partNumber) {
        if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "Part number must be an integer between 1 and " + MAX_PART_NUMBER + ", got " + partNumber);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // startup validation removes what no record holds
        }
    }

    private List<Part> partsOf(String uploadId) {
        List<Part> parts = new ArrayList<>();
        metadata.scanUploadEntries(uploadId + "/", (k, v) -> parts.add(new Part(
                Integer.parseInt(k.substring(k.indexOf('/') + 1)), ObjectMeta.decode(v))));
        return parts;
    }

    private static List<ObjectMeta> choose(List<PartRef> refs, Map<Integer, ObjectMeta> stored) {
        if (refs.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "CompleteMultipartUpload names no parts.");
        }
        for (int i = 1; i < refs.size(); i++) {
            if (refs.get(i).number() <= refs.get(i - 1).number()) {
                throw new S3Exception(S3ErrorCode.INVALID_PART_ORDER);
            }
        }
        List<ObjectMeta> chosen = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            PartRef ref = refs.get(i);
            ObjectMeta part = stored.get(ref.number());
            if (part == null || !part.etag().equals(unquote(ref.etag()))) {
                throw new S3Exception(S3ErrorCode.INVALID_PART,
                        "Part " + ref.number() + " was not uploaded or its ETag does not match.");
            }
            if (i < refs.size() - 1 && part.size() < MIN_PART_BYTES && !part.isShared()) {
                throw new S3Exception(S3ErrorCode.ENTITY_TOO_SMALL, "Part " + ref.number() + " is " + part.size()
                        + " bytes; every part but the last must be at least " + MIN_PART_BYTES + " bytes.");
            }
            chosen.add(part);
        }
        return chosen;
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
                try (FileChannel in = FileChannel.open(directory.uploadPartFile(uploadId, part.fileId()))) {
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
            if (store.durability() == Durability.PERSISTENT) {
                out.force(true);
            }
        }
        String etag = HexFormat.of().formatHex(md5s.digest()) + "-" + parts.size();
        return new ObjectMeta(fileId, total, etag, (int) crc.getValue(), System.currentTimeMillis(),
                upload.contentType(), ClientChecksums.with(upload.headers(), ClientChecksums.composite(parts)),
                upload.userMetadata()).withParts(sizes(parts));
    }

    private static List<Long> sizes(List<ObjectMeta> parts) {
        return parts.stream().map(ObjectMeta::size).toList();
    }

    /** Removes the upload's records in one batch with the references its copied parts hold, then its files. */
    private synchronized void abortParts(String uploadId) {
        List<Part> parts = partsOf(uploadId);
        ExtentRefs.Change change = new ExtentRefs.Change();
        parts.stream().filter(p -> p.meta().isShared()).forEach(p -> change.release(p.meta().extents()));
        List<ExtentRefs.Freed> freed;
        try (MetadataStore.Batch batch = metadata.batch()) {
            parts.forEach(p -> batch.deleteUploadEntry(partKey(uploadId, p.number())));
            batch.deleteUploadEntry(uploadId);
            freed = store.refs().commit(batch, change);
        }
        store.free(freed);
        for (Part part : parts) {
            if (!part.meta().isShared()) {
                deleteQuietly(directory.uploadPartFile(uploadId, part.meta().fileId()));
                store.release(part.meta().size());
            }
        }
        deleteQuietly(directory.uploads().resolve(uploadId));
    }

    private static String partKey(String uploadId, int number) {
        return uploadId + "/" + String.format("%05d", number);
    }

    private static String unquote(String etag) {
        String e = etag.trim();
        return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
    }

    private static byte[] encode(Upload upload) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(2);
            out.writeUTF(upload.bucket());
            out.writeUTF(upload.key());
            out.writeUTF(upload.contentType());
            ObjectMeta.writeMap(out, upload.userMetadata());
            ObjectMeta.writeMap(out, upload.headers());
            out.writeLong(upload.initiatedMs());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private static Upload decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte format = in.readByte();
            String bucket = in.readUTF();
            String key = in.readUTF();
            String contentType = in.readUTF();
            Map<String, String> meta = ObjectMeta.readMap(in);
            Map<String, String> headers = format >= 2 ? ObjectMeta.readMap(in) : Map.of();
            long initiated = format >= 2 ? in.readLong() : 0;
            return new Upload(bucket, key, contentType, headers, meta, initiated);
        } catch (IOException e) {
            throw new UncheckedIOException("unreadable upload record", e);
        }
    }
}
