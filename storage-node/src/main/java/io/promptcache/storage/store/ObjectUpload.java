package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.CRC32C;

import io.netty.buffer.ByteBuf;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * One PUT in progress: the body streams into a temporary file, an off-heap RAM buffer, or both (per the tier
 * policy) while MD5, CRC32C and the chunk checksums are computed; nothing is visible until {@link #commit} puts the body in place and
 * writes the index entry. {@link #close()} aborts an uncommitted upload and removes what it wrote. Not thread-safe:
 * one writer.
 */
public final class ObjectUpload implements AutoCloseable {

    /** Where a finished body goes: an object, or a part of a multipart upload. */
    @FunctionalInterface
    interface Target {

        /**
         * Makes the body visible: the file {@code tmp/<fileId>.part} when {@code onDisk}, and/or the RAM copy (whose
         * reference the target takes over, also on failure), with the chunk checksums of its bytes. On failure the
         * caller aborts the upload.
         */
        void commit(ObjectMeta meta, ChunkSums sums, long reservedBytes, ByteBuf ram, boolean onDisk)
                throws IOException;
    }

    private final Capacity capacity;
    private final BodyFiles bodies;
    private final Target target;
    private final long declaredLength;
    private final ObjectHeaders headers;
    private final String fileId;
    /** Null when the body goes to RAM only. */
    private final FileChannel channel;
    /** The RAM copy, or null; owned until handed to the target. */
    private ByteBuf ram;
    /** The whole body of an inline upload, or null. */
    private final byte[] inline;
    private final MessageDigest md5;
    private final CRC32C crc = new CRC32C();
    private final ChunkSums.Builder sums = new ChunkSums.Builder();
    private long written;
    private long reserved;
    private boolean finished;

    ObjectUpload(Capacity capacity, BodyFiles bodies, Target target, long declaredLength, ObjectHeaders headers,
            Tiers.Sink sink) throws IOException {
        this.capacity = capacity;
        this.bodies = bodies;
        this.target = target;
        this.declaredLength = declaredLength;
        this.headers = headers;
        this.fileId = DataDirectory.newFileId();
        if (declaredLength >= 0) {
            capacity.reserve(declaredLength);
            reserved = declaredLength;
        }
        this.md5 = Digests.md5();
        try {
            this.inline = sink == Tiers.Sink.INLINE ? new byte[(int) declaredLength] : null;
            boolean inRam = sink == Tiers.Sink.RAM || sink == Tiers.Sink.FILE_AND_RAM;
            this.ram = inRam ? bodies.tiers().allocate(declaredLength) : null;
            boolean toFile = sink == Tiers.Sink.FILE || sink == Tiers.Sink.FILE_AND_RAM;
            this.channel = toFile ? bodies.createPart(fileId) : null;
        } catch (IOException | RuntimeException e) {
            if (ram != null) {
                ram.release();
            }
            capacity.release(reserved);
            throw e;
        }
    }

    /** Appends body bytes (consumes the buffer). */
    public void write(ByteBuffer bytes) throws IOException {
        int n = bytes.remaining();
        if (declaredLength >= 0 && written + n > declaredLength) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "The body is longer than the declared Content-Length of " + declaredLength + " bytes.");
        }
        if (declaredLength < 0) {
            capacity.reserve(n);
            reserved += n;
        }
        md5.update(bytes.duplicate());
        crc.update(bytes.duplicate());
        sums.update(bytes);
        if (inline != null) {
            bytes.duplicate().get(inline, (int) written, n);
        }
        if (ram != null) {
            if (ram.maxWritableBytes() < n) {
                throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE, "The body is larger than this node's RAM tier"
                        + " can hold (" + ram.maxCapacity() + " bytes).");
            }
            ram.writeBytes(bytes.duplicate());
        }
        if (channel != null) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }
        written += n;
    }

    public void write(byte[] bytes, int offset, int length) throws IOException {
        write(ByteBuffer.wrap(bytes, offset, length));
    }

    /** Bytes received so far. */
    public long written() {
        return written;
    }

    /**
     * Makes the object visible: checks length and digest, fsyncs per durability, renames into place, writes the
     * index entry, then removes the body of the object it replaces.
     *
     * @param expectedMd5 the decoded Content-MD5, or null
     */
    public ObjectMeta commit(byte[] expectedMd5) throws IOException {
        return commit(expectedMd5, Map.of());
    }

    /**
     * {@link #commit(byte[])} of a body whose client checksum was verified: {@code checksums} are kept with the
     * object's headers ({@link ClientChecksums}).
     */
    public ObjectMeta commit(byte[] expectedMd5, Map<String, String> checksums) throws IOException {
        if (finished) {
            throw new IllegalStateException("upload already finished");
        }
        if (declaredLength >= 0 && written != declaredLength) {
            throw new S3Exception(S3ErrorCode.INCOMPLETE_BODY, "Received " + written + " of the " + declaredLength
                    + " bytes declared by Content-Length.");
        }
        byte[] digest = md5.digest();
        if (expectedMd5 != null && !MessageDigest.isEqual(digest, expectedMd5)) {
            throw new S3Exception(S3ErrorCode.BAD_DIGEST);
        }
        if (channel != null) {
            if (bodies.persistent()) {
                channel.force(true);
            }
            channel.close();
        }
        ObjectMeta meta = new ObjectMeta(fileId, written, HexFormat.of().formatHex(digest),
                (int) crc.getValue(), System.currentTimeMillis(), headers.contentType(),
                ClientChecksums.with(headers.headers(), checksums), headers.userMetadata(), inline);
        ByteBuf handedOver = ram;
        ram = null;
        target.commit(meta, sums.build(), reserved, handedOver, channel != null);
        finished = true;
        return meta;
    }

    /** Aborts an uncommitted upload: the temporary file is removed and the reserved capacity released. */
    @Override
    public void close() throws IOException {
        if (finished) {
            return;
        }
        finished = true;
        if (ram != null) {
            ram.release();
            ram = null;
        }
        if (channel != null) {
            channel.close();
            bodies.deletePart(fileId);
        }
        capacity.release(reserved);
    }
}
