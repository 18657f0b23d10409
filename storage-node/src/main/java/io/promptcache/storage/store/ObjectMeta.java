package io.promptcache.storage.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the node knows of one stored object, kept in RocksDB under (bucket, key).
 *
 * @param fileId name of the body file under {@code objects/} (32 hex characters, unique per PUT)
 * @param size body length in bytes
 * @param etag the S3 ETag without quotes (hex MD5, or {@code md5-of-md5s-N} for multipart)
 * @param crc32c CRC32C of the body, checked by verify-on-read and startup validation
 * @param lastModified milliseconds since the Unix epoch
 * @param contentType Content-Type given at PUT ({@code application/octet-stream} by default)
 * @param headers the content headers given at PUT and returned on GET and HEAD ({@link #CONTENT_HEADERS}), names
 *        lower-case
 * @param userMetadata {@code x-amz-meta-*} headers, names lower-case without the prefix
 * @param inline the body itself when it is small enough to live in the index entry (no body file), else null
 * @param extents the body as runs of shared body files (an object made by a copy), or null when the body is the
 *        whole file {@code fileId}; {@code fileId} is then only the version's unique id and names no file, and
 *        {@code crc32c} is the body's when it is known (a whole-object copy), else 0: every body file's own
 *        CRC32C is kept with its reference count
 * @param parts the sizes of a multipart object's parts, in order (GET with {@code partNumber}); empty for others
 */
public record ObjectMeta(String fileId, long size, String etag, int crc32c, long lastModified, String contentType,
        Map<String, String> headers, Map<String, String> userMetadata, byte[] inline, List<Extent> extents,
        List<Long> parts) {

    /** The standard headers stored with an object, besides Content-Type (lower-case). */
    public static final List<String> CONTENT_HEADERS = List.of("cache-control", "content-disposition",
            "content-encoding", "content-language", "expires");

    private static final byte FORMAT_V1 = 1;
    /** V1 plus the inline body (length -1 when the body is in a file). */
    private static final byte FORMAT_V2 = 2;
    /** V2 plus the extents (count -1 when the body is the file {@code fileId}). */
    private static final byte FORMAT_V3 = 3;
    /** V3 plus the content headers and the part sizes. */
    private static final byte FORMAT_V4 = 4;

    public ObjectMeta {
        headers = Map.copyOf(headers);
        userMetadata = Map.copyOf(userMetadata);
        extents = extents == null ? null : List.copyOf(extents);
        parts = List.copyOf(parts);
    }

    /** Metadata of a body kept in a file, inline, or as shared extents. */
    public ObjectMeta(String fileId, long size, String etag, int crc32c, long lastModified, String contentType,
            Map<String, String> headers, Map<String, String> userMetadata, byte[] inline, List<Extent> extents) {
        this(fileId, size, etag, crc32c, lastModified, contentType, headers, userMetadata, inline, extents,
                List.of());
    }

    /** Metadata of a body kept in a file or inline. */
    public ObjectMeta(String fileId, long size, String etag, int crc32c, long lastModified, String contentType,
            Map<String, String> headers, Map<String, String> userMetadata, byte[] inline) {
        this(fileId, size, etag, crc32c, lastModified, contentType, headers, userMetadata, inline, null);
    }

    /** Metadata of a body kept in a file. */
    public ObjectMeta(String fileId, long size, String etag, int crc32c, long lastModified, String contentType,
            Map<String, String> headers, Map<String, String> userMetadata) {
        this(fileId, size, etag, crc32c, lastModified, contentType, headers, userMetadata, null);
    }

    /** The same object recorded as made of parts of these sizes (a completed multipart upload). */
    ObjectMeta withParts(List<Long> sizes) {
        return new ObjectMeta(fileId, size, etag, crc32c, lastModified, contentType, headers, userMetadata, inline,
                extents, sizes);
    }

    /** Whether the body lives in the index entry rather than in a file. */
    public boolean isInline() {
        return inline != null;
    }

    /** Whether the body is made of shared extents (a copy) rather than one file of its own. */
    public boolean isShared() {
        return extents != null;
    }

    /** The body as extents, in order: none when inline, the whole file {@code fileId}, or the shared extents. */
    public List<Extent> bodyExtents() {
        if (extents != null) {
            return extents;
        }
        return isInline() ? List.of() : List.of(new Extent(fileId, 0, size));
    }

    /** The same object under other metadata (a copy with REPLACE, or a new version id). */
    ObjectMeta with(String newFileId, long modified, String newContentType, Map<String, String> newHeaders,
            Map<String, String> newUserMetadata) {
        return new ObjectMeta(newFileId, size, etag, crc32c, modified, newContentType, newHeaders, newUserMetadata,
                inline, bodyExtents().isEmpty() ? null : bodyExtents(), parts);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ObjectMeta m && fileId.equals(m.fileId) && size == m.size && etag.equals(m.etag)
                && crc32c == m.crc32c && lastModified == m.lastModified && contentType.equals(m.contentType)
                && headers.equals(m.headers) && userMetadata.equals(m.userMetadata) && Arrays.equals(inline, m.inline)
                && Objects.equals(extents, m.extents) && parts.equals(m.parts);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fileId, size, etag, crc32c, lastModified, contentType, headers, userMetadata,
                extents)
                + 31 * Arrays.hashCode(inline);
    }

    @Override
    public String toString() {
        return "ObjectMeta[fileId=" + fileId + ", size=" + size + ", etag=" + etag + ", inline=" + isInline()
                + (extents == null ? "" : ", extents=" + extents) + "]";
    }

    /** The value bytes stored in RocksDB. */
    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(FORMAT_V4);
            out.writeUTF(fileId);
            out.writeLong(size);
            out.writeUTF(etag);
            out.writeInt(crc32c);
            out.writeLong(lastModified);
            out.writeUTF(contentType);
            writeMap(out, userMetadata);
            out.writeInt(inline == null ? -1 : inline.length);
            if (inline != null) {
                out.write(inline);
            }
            out.writeInt(extents == null ? -1 : extents.size());
            if (extents != null) {
                for (Extent e : extents) {
                    out.writeUTF(e.fileId());
                    out.writeLong(e.offset());
                    out.writeLong(e.length());
                }
            }
            writeMap(out, headers);
            out.writeInt(parts.size());
            for (long part : parts) {
                out.writeLong(part);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("in-memory stream", e);
        }
        return bytes.toByteArray();
    }

    /** Decodes {@link #encode()}; a value in an unknown format is a corrupt index entry. */
    static ObjectMeta decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte format = in.readByte();
            if (format < FORMAT_V1 || format > FORMAT_V4) {
                throw new IOException("unknown object metadata format " + format);
            }
            String fileId = in.readUTF();
            long size = in.readLong();
            String etag = in.readUTF();
            int crc32c = in.readInt();
            long lastModified = in.readLong();
            String contentType = in.readUTF();
            Map<String, String> meta = readMap(in);
            byte[] inline = null;
            if (format >= FORMAT_V2) {
                int length = in.readInt();
                if (length >= 0) {
                    inline = in.readNBytes(length);
                    if (inline.length != length) {
                        throw new IOException("inline body cut short");
                    }
                }
            }
            List<Extent> extents = format >= FORMAT_V3 ? readExtents(in) : null;
            Map<String, String> headers = format >= FORMAT_V4 ? readMap(in) : Map.of();
            List<Long> parts = new ArrayList<>();
            for (int i = format >= FORMAT_V4 ? in.readInt() : 0; i > 0; i--) {
                parts.add(in.readLong());
            }
            return new ObjectMeta(fileId, size, etag, crc32c, lastModified, contentType, headers, meta, inline,
                    extents, parts);
        } catch (IOException | IllegalArgumentException e) {
            throw new CorruptMetadataException("unreadable object metadata: " + e.getMessage(), e);
        }
    }

    /** A map as its size and its entries (written and read by {@link ObjectMeta} and upload records). */
    static void writeMap(DataOutputStream out, Map<String, String> map) throws IOException {
        out.writeInt(map.size());
        for (Map.Entry<String, String> e : map.entrySet()) {
            out.writeUTF(e.getKey());
            out.writeUTF(e.getValue());
        }
    }

    static Map<String, String> readMap(DataInputStream in) throws IOException {
        int count = in.readInt();
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            map.put(in.readUTF(), in.readUTF());
        }
        return map;
    }

    private static List<Extent> readExtents(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0) {
            return null;
        }
        List<Extent> extents = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            extents.add(new Extent(in.readUTF(), in.readLong(), in.readLong()));
        }
        return extents;
    }

    /** An index entry that cannot be decoded; startup validation drops it. */
    public static final class CorruptMetadataException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        CorruptMetadataException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
