package io.promptcache.storage.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.MultipartUploads.Part;
import io.promptcache.storage.store.MultipartUploads.Upload;

/**
 * The records of multipart uploads in the metadata store: {@code <uploadId>} for the upload (bucket, key, headers,
 * initiation), {@code <uploadId>/<part number>} for each part (an {@link ObjectMeta}: an uploaded part's file under
 * {@code uploads/}, named {@code <uploadId>-<fileId>}, or the extents of a copied one), so uploads in progress
 * survive restarts.
 */
final class UploadRecords {

    private final MetadataStore metadata;
    private final DataDirectory directory;

    UploadRecords(MetadataStore metadata, DataDirectory directory) {
        this.metadata = metadata;
        this.directory = directory;
    }

    /** Records a new upload; its id. */
    String create(Upload upload) {
        String uploadId = DataDirectory.newUploadId();
        metadata.putUploadEntry(uploadId, encode(upload));
        return uploadId;
    }

    /** The upload recorded under {@code uploadId}, or null. */
    Upload find(String uploadId) {
        byte[] value = DataDirectory.isFileId(uploadId) ? metadata.getUploadEntry(uploadId) : null;
        return value == null ? null : decode(value);
    }

    /** The upload, checked to belong to {@code bucket}/{@code key}; {@code NoSuchUpload} otherwise. */
    Upload require(String bucket, String key, String uploadId) {
        Upload upload = find(uploadId);
        if (upload == null || !upload.bucket().equals(bucket) || !upload.key().equals(key)) {
            throw new S3Exception(S3ErrorCode.NO_SUCH_UPLOAD,
                    "The specified multipart upload does not exist: " + uploadId);
        }
        return upload;
    }

    /** Every upload in progress, with its id. */
    void forEachUpload(Consumer<MultipartUploads.Listed> action) {
        metadata.scanUploadEntries("", (id, value) -> {
            if (id.indexOf('/') < 0) {
                action.accept(new MultipartUploads.Listed(id, decode(value)));
            }
        });
    }

    /** The stored parts of an upload, by number. */
    List<Part> parts(String uploadId) {
        List<Part> parts = new ArrayList<>();
        metadata.scanUploadEntries(uploadId + "/", (k, v) -> parts.add(new Part(
                Integer.parseInt(k.substring(k.indexOf('/') + 1)), ObjectMeta.decode(v))));
        return parts;
    }

    /** Part {@code number} of the upload, or null. */
    ObjectMeta part(String uploadId, int number) {
        byte[] value = metadata.getUploadEntry(partKey(uploadId, number));
        return value == null ? null : ObjectMeta.decode(value);
    }

    /** Writes part {@code number} in {@code batch}. */
    static void putPart(MetadataStore.Batch batch, String uploadId, int number, ObjectMeta part) {
        batch.putUploadEntry(partKey(uploadId, number), part.encode());
    }

    /** Deletes the upload's record and those of {@code parts} in {@code batch}. */
    static void delete(MetadataStore.Batch batch, String uploadId, List<Part> parts) {
        parts.forEach(p -> batch.deleteUploadEntry(partKey(uploadId, p.number())));
        batch.deleteUploadEntry(uploadId);
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

    private static String partKey(String uploadId, int number) {
        return uploadId + "/" + String.format("%05d", number);
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
