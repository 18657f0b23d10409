package io.promptcache.storage.store;

import java.io.IOException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import io.promptcache.storage.store.MultipartUploads.Part;
import io.promptcache.storage.store.MultipartUploads.Upload;

/**
 * Completion of an upload with copied parts (a continuation: UploadPartCopy of its parent's bytes plus its new ones)
 * into an object of extents: the copied ranges, shared, and the uploaded parts' files, linked into {@code objects/}
 * (on a RAM-only node, loaded into RAM); then one batch writes the object, its references and the removal of every
 * part record. Nothing is visible before that batch, and a crash before it leaves only orphan links. No byte is
 * copied.
 */
final class SharedCompletion {

    private final UploadRecords records;
    private final BodyFiles bodies;
    private final Entries entries;
    private final Capacity capacity;

    SharedCompletion(UploadRecords records, BodyFiles bodies, Entries entries, Capacity capacity) {
        this.records = records;
        this.bodies = bodies;
        this.entries = entries;
        this.capacity = capacity;
    }

    /**
     * Completes {@code uploadId} with the {@code chosen} parts; {@code lock} serializes the upload's record changes
     * (held while the parts are placed and the object indexed).
     */
    ObjectMeta complete(String bucket, String key, String uploadId, Upload upload, List<ObjectMeta> chosen,
            WriteCondition condition, Object lock) throws IOException {
        // the uploaded parts' chunk checksums, read from their files before the lock (a part records only its CRC32C)
        Map<String, ChunkSums> sums = new HashMap<>();
        for (ObjectMeta part : chosen) {
            if (!part.isShared()) {
                sums.put(part.fileId(), ChunkSums.of(bodies.directory().uploadPartFile(uploadId, part.fileId()),
                        part.size()));
            }
        }
        synchronized (lock) {
            records.require(bucket, key, uploadId);
            return join(bucket, key, uploadId, upload, chosen, condition, sums);
        }
    }

    private ObjectMeta join(String bucket, String key, String uploadId, Upload upload, List<ObjectMeta> chosen,
            WriteCondition condition, Map<String, ChunkSums> sums) throws IOException {
        MessageDigest md5s = Digests.md5();
        ExtentRefs.Change change = new ExtentRefs.Change();
        List<Extent> extents = new ArrayList<>();
        List<Extent> shared = new ArrayList<>();
        List<String> placed = new ArrayList<>();
        Runnable undo = () -> placed.forEach(bodies::unplace);
        try {
            for (ObjectMeta part : chosen) {
                md5s.update(HexFormat.of().parseHex(part.etag()));
                if (part.isShared()) {
                    extents.addAll(part.extents());
                    shared.addAll(part.extents());
                } else {
                    bodies.placePart(bucket, key, uploadId, part);
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
        List<Part> all = records.parts(uploadId);
        all.stream().filter(p -> p.meta().isShared()).forEach(p -> change.release(p.meta().extents()));
        ObjectMeta meta = new ObjectMeta(DataDirectory.newFileId(), extents.stream().mapToLong(Extent::length)
                .sum(), HexFormat.of().formatHex(md5s.digest()) + "-" + chosen.size(), 0,
                System.currentTimeMillis(), upload.contentType(), ClientChecksums.with(upload.headers(),
                        ClientChecksums.composite(chosen)),
                upload.userMetadata(), null,
                merge(extents), MultipartUploads.sizes(chosen));
        entries.install(bucket, key, new Entries.Install(meta, change,
                batch -> UploadRecords.delete(batch, uploadId, all), 0, 0, condition), undo);
        for (Part p : all) {
            if (!p.meta().isShared()) {
                // a chosen part's bytes now belong to the object's file (the link); the others are freed
                BodyFiles.deleteQuietly(bodies.directory().uploadPartFile(uploadId, p.meta().fileId()));
                if (!placed.contains(p.meta().fileId())) {
                    capacity.release(p.meta().size());
                }
            }
        }
        return meta;
    }

    /** Adjacent runs of one file become one extent (consecutive copied ranges of one source). */
    static List<Extent> merge(List<Extent> extents) {
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
}
