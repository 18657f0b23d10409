package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.CRC32C;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * One PUT in progress: the body streams into a temporary file while MD5 and CRC32C are computed; nothing is
 * visible until {@link #commit} renames the file into place and writes the index entry. {@link #close()} aborts an
 * uncommitted upload and removes its temporary file. Not thread-safe: one writer.
 */
public final class ObjectUpload implements AutoCloseable {

    /** Where a finished body goes: an object, or a part of a multipart upload. */
    @FunctionalInterface
    interface Target {

        /** Makes the body in {@code tmp/<fileId>.part} visible; on failure the caller aborts the upload. */
        void commit(ObjectMeta meta, long reservedBytes) throws IOException;
    }

    private final ObjectStore store;
    private final Target target;
    private final long declaredLength;
    private final String contentType;
    private final Map<String, String> userMetadata;
    private final String fileId;
    private final FileChannel channel;
    private final MessageDigest md5;
    private final CRC32C crc = new CRC32C();
    private long written;
    private long reserved;
    private boolean finished;

    ObjectUpload(ObjectStore store, Target target, long declaredLength, String contentType,
            Map<String, String> userMetadata) throws IOException {
        this.store = store;
        this.target = target;
        this.declaredLength = declaredLength;
        this.contentType = contentType;
        this.userMetadata = userMetadata;
        this.fileId = DataDirectory.newFileId();
        if (declaredLength >= 0) {
            store.reserve(declaredLength);
            reserved = declaredLength;
        }
        this.md5 = Digests.md5();
        this.channel = FileChannel.open(store.directory().partFile(fileId), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
    }

    /** Appends body bytes (consumes the buffer). */
    public void write(ByteBuffer bytes) throws IOException {
        int n = bytes.remaining();
        if (declaredLength >= 0 && written + n > declaredLength) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "The body is longer than the declared Content-Length of " + declaredLength + " bytes.");
        }
        if (declaredLength < 0) {
            store.reserve(n);
            reserved += n;
        }
        ByteBuffer view = bytes.duplicate();
        md5.update(view);
        crc.update(bytes.duplicate());
        while (bytes.hasRemaining()) {
            channel.write(bytes);
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
        boolean persistent = store.durability() == Durability.PERSISTENT;
        if (persistent) {
            channel.force(true);
        }
        channel.close();
        ObjectMeta meta = new ObjectMeta(fileId, written, HexFormat.of().formatHex(digest),
                (int) crc.getValue(), System.currentTimeMillis(), contentType, userMetadata);
        target.commit(meta, reserved);
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
        channel.close();
        Files.deleteIfExists(store.directory().partFile(fileId));
        store.release(reserved);
    }
}
