package io.promptcache.storage.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The node's metadata on RocksDB: buckets, object entries, multipart uploads and the reference counts of body
 * files, in four column families; changes that must land together go in one {@link Batch}. Object entries are keyed
 * {@code bucket 0x00 key} (UTF-8), so a bucket's keys iterate in UTF-8 binary order, as S3 lists them. Every
 * {@link RocksDBException} is wrapped once, here, with the store's name.
 */
public final class MetadataStore implements AutoCloseable {

    private static final String NAME = "storage metadata";
    private static final byte SEPARATOR = 0;

    static {
        RocksDB.loadLibrary();
    }

    private final DBOptions dbOptions;
    private final ColumnFamilyOptions cfOptions;
    private final WriteOptions writeOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;
    private final ColumnFamilyHandle buckets;
    private final ColumnFamilyHandle objects;
    private final ColumnFamilyHandle uploads;
    private final ColumnFamilyHandle files;
    private boolean closed;

    /**
     * Opens (or creates) the store.
     *
     * @param directory RocksDB directory
     * @param syncWrites fsync the write-ahead log on every write ({@code persistent} durability)
     */
    public MetadataStore(Path directory, boolean syncWrites) {
        dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        cfOptions = new ColumnFamilyOptions();
        writeOptions = new WriteOptions().setSync(syncWrites);
        List<ColumnFamilyDescriptor> descriptors = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor(bytes("buckets"), cfOptions),
                new ColumnFamilyDescriptor(bytes("objects"), cfOptions),
                new ColumnFamilyDescriptor(bytes("uploads"), cfOptions),
                new ColumnFamilyDescriptor(bytes("files"), cfOptions));
        try {
            db = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
        } catch (RocksDBException e) {
            closeOptions();
            throw failure("open " + directory, e);
        }
        buckets = handles.get(1);
        objects = handles.get(2);
        uploads = handles.get(3);
        files = handles.get(4);
    }

    // ---- atomic changes

    /** Changes written together or not at all ({@link #write}); close it after. */
    public final class Batch implements AutoCloseable {

        private final WriteBatch batch = new WriteBatch();

        public Batch putObject(String bucket, String key, ObjectMeta meta) {
            write(() -> batch.put(objects, objectKey(bucket, key), meta.encode()), "batch object");
            return this;
        }

        public Batch deleteObject(String bucket, String key) {
            write(() -> batch.delete(objects, objectKey(bucket, key)), "batch object delete");
            return this;
        }

        public Batch putFile(String fileId, byte[] value) {
            write(() -> batch.put(files, bytes(fileId), value), "batch file");
            return this;
        }

        public Batch deleteFile(String fileId) {
            write(() -> batch.delete(files, bytes(fileId)), "batch file delete");
            return this;
        }

        public Batch putUploadEntry(String key, byte[] value) {
            write(() -> batch.put(uploads, bytes(key), value), "batch upload");
            return this;
        }

        public Batch deleteUploadEntry(String key) {
            write(() -> batch.delete(uploads, bytes(key)), "batch upload delete");
            return this;
        }

        @Override
        public void close() {
            batch.close();
        }
    }

    public Batch batch() {
        return new Batch();
    }

    /** Writes the batch atomically (one WAL record, synced under {@code persistent}). */
    public void write(Batch batch) {
        write(() -> db.write(writeOptions, batch.batch), "write batch");
    }

    // ---- reference counts of body files: file id -> ExtentRefs.FileEntry

    /** Visits every file entry. */
    public void scanFiles(EntryConsumer visitor) {
        try (RocksIterator it = db.newIterator(files)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                visitor.accept(new String(it.key(), StandardCharsets.UTF_8), it.value());
            }
        }
    }

    // ---- multipart uploads: upload records under "<uploadId>", part records under "<uploadId>/<part number>"

    public byte[] getUploadEntry(String key) {
        return read(() -> db.get(uploads, bytes(key)), "read upload");
    }

    public void putUploadEntry(String key, byte[] value) {
        write(() -> db.put(uploads, writeOptions, bytes(key), value), "write upload");
    }

    public void deleteUploadEntry(String key) {
        write(() -> db.delete(uploads, writeOptions, bytes(key)), "delete upload");
    }

    /** Visits upload entries whose key starts with {@code prefix}, in key order. */
    public void scanUploadEntries(String prefix, EntryConsumer visitor) {
        byte[] p = bytes(prefix);
        try (RocksIterator it = db.newIterator(uploads)) {
            for (it.seek(p); it.isValid() && startsWith(it.key(), p); it.next()) {
                visitor.accept(new String(it.key(), StandardCharsets.UTF_8), it.value());
            }
        }
    }

    /** Visits one upload entry. */
    @FunctionalInterface
    public interface EntryConsumer {

        void accept(String key, byte[] value);
    }

    /** Creates a bucket; false if it exists already. */
    public synchronized boolean createBucket(String bucket, long createdMillis) {
        if (bucketCreated(bucket).isPresent()) {
            return false;
        }
        write(() -> db.put(buckets, writeOptions, bytes(bucket), longBytes(createdMillis)), "create bucket");
        return true;
    }

    /** Creation time of the bucket, if it exists. */
    public Optional<Long> bucketCreated(String bucket) {
        byte[] value = read(() -> db.get(buckets, bytes(bucket)), "read bucket");
        return value == null ? Optional.empty() : Optional.of(bytesLong(value));
    }

    public void deleteBucket(String bucket) {
        write(() -> db.delete(buckets, writeOptions, bytes(bucket)), "delete bucket");
    }

    /** All buckets with their creation times, in name order. */
    public Map<String, Long> listBuckets() {
        Map<String, Long> out = new LinkedHashMap<>();
        try (RocksIterator it = db.newIterator(buckets)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                out.put(new String(it.key(), StandardCharsets.UTF_8), bytesLong(it.value()));
            }
        }
        return out;
    }

    public Optional<ObjectMeta> getObject(String bucket, String key) {
        byte[] value = read(() -> db.get(objects, objectKey(bucket, key)), "read object");
        return value == null ? Optional.empty() : Optional.of(ObjectMeta.decode(value));
    }

    public void putObject(String bucket, String key, ObjectMeta meta) {
        write(() -> db.put(objects, writeOptions, objectKey(bucket, key), meta.encode()), "write object");
    }

    public void deleteObject(String bucket, String key) {
        write(() -> db.delete(objects, writeOptions, objectKey(bucket, key)), "delete object");
    }

    /** True if the bucket holds at least one object. */
    public boolean hasObjects(String bucket) {
        byte[] prefix = objectKey(bucket, "");
        try (RocksIterator it = db.newIterator(objects)) {
            it.seek(prefix);
            return it.isValid() && startsWith(it.key(), prefix);
        }
    }

    /**
     * Visits a bucket's objects in key order, starting at {@code from} (or after it when {@code exclusive}), until
     * the visitor returns false.
     */
    public void scan(String bucket, String from, boolean exclusive, ObjectVisitor visitor) {
        byte[] prefix = objectKey(bucket, "");
        try (RocksIterator it = db.newIterator(objects)) {
            byte[] seek = objectKey(bucket, from);
            it.seek(seek);
            if (exclusive && it.isValid() && Arrays.equals(it.key(), seek)) {
                it.next();
            }
            for (; it.isValid() && startsWith(it.key(), prefix); it.next()) {
                String key = new String(it.key(), prefix.length, it.key().length - prefix.length,
                        StandardCharsets.UTF_8);
                if (!visitor.visit(key, it.value())) {
                    return;
                }
            }
        }
    }

    /** Visits every object entry of every bucket with its raw value (validation decodes, and may drop, it). */
    public void scanAll(EntryVisitor visitor) {
        try (RocksIterator it = db.newIterator(objects)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                int sep = indexOf(k, SEPARATOR);
                visitor.visit(new String(k, 0, sep, StandardCharsets.UTF_8),
                        new String(k, sep + 1, k.length - sep - 1, StandardCharsets.UTF_8), it.value());
            }
        }
    }

    /** Closes handles, the database and its options, in that order. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        handles.forEach(ColumnFamilyHandle::close);
        db.close();
        closeOptions();
    }

    private void closeOptions() {
        writeOptions.close();
        cfOptions.close();
        dbOptions.close();
    }

    /** Visits one object of a bucket; return false to stop. */
    @FunctionalInterface
    public interface ObjectVisitor {

        boolean visit(String key, byte[] encodedMeta);
    }

    /** Visits one object entry of any bucket. */
    @FunctionalInterface
    public interface EntryVisitor {

        void visit(String bucket, String key, byte[] encodedMeta);
    }

    @FunctionalInterface
    private interface RocksWrite {

        void run() throws RocksDBException;
    }

    @FunctionalInterface
    private interface RocksRead {

        byte[] get() throws RocksDBException;
    }

    private static void write(RocksWrite op, String what) {
        try {
            op.run();
        } catch (RocksDBException e) {
            throw failure(what, e);
        }
    }

    private static byte[] read(RocksRead op, String what) {
        try {
            return op.get();
        } catch (RocksDBException e) {
            throw failure(what, e);
        }
    }

    private static MetadataStoreException failure(String what, RocksDBException e) {
        return new MetadataStoreException(NAME + ": " + what + " failed: " + e.getMessage(), e);
    }

    static byte[] objectKey(String bucket, String key) {
        byte[] b = bytes(bucket);
        byte[] k = bytes(key);
        byte[] out = new byte[b.length + 1 + k.length];
        System.arraycopy(b, 0, out, 0, b.length);
        out[b.length] = SEPARATOR;
        System.arraycopy(k, 0, out, b.length + 1, k.length);
        return out;
    }

    private static boolean startsWith(byte[] value, byte[] prefix) {
        return value.length >= prefix.length && Arrays.equals(value, 0, prefix.length, prefix, 0, prefix.length);
    }

    private static int indexOf(byte[] value, byte b) {
        for (int i = 0; i < value.length; i++) {
            if (value[i] == b) {
                return i;
            }
        }
        return -1;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] longBytes(long v) {
        return java.nio.ByteBuffer.allocate(8).putLong(v).array();
    }

    private static long bytesLong(byte[] b) {
        return java.nio.ByteBuffer.wrap(b).getLong();
    }

    /** A RocksDB failure, with the store's name and the operation. */
    public static final class MetadataStoreException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        MetadataStoreException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
