package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Buckets and objects: bodies in files under the data directory and/or in the RAM tier (per {@link TierPolicy}),
 * metadata in RocksDB. A PUT is atomic (temporary file or RAM buffer, fsync per durability, rename, then the index
 * entry): a crash at any point never makes a partial object visible, and startup validation removes what a crash
 * left behind. Capacity is reserved before bytes are written, so an over-capacity PUT is refused without writing
 * anything.
 */
public final class ObjectStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);
    private static final int COMMIT_STRIPES = 64;

    private final DataDirectory directory;
    private final MetadataStore metadata;
    private final StoreOptions options;
    private final Durability durability;
    private final long capacityBytes;
    private final Tiers tiers;
    private final TierStats stats;
    /** Null on the first start of a data directory. */
    private final Boolean previousShutdownClean;
    private final ValidationReport validation;
    private final MultipartUploads multipart;
    /** Committed bytes plus bytes reserved by uploads in progress. */
    private final AtomicLong allocatedBytes = new AtomicLong();
    private final AtomicLong objectCount = new AtomicLong();
    private final Object[] commitLocks = new Object[COMMIT_STRIPES];
    /** Commits hold it shared, DeleteBucket exclusively: no object lands in a bucket being deleted. */
    private final ReentrantReadWriteLock bucketLifecycle = new ReentrantReadWriteLock();
    private boolean closed;

    private ObjectStore(DataDirectory directory, StoreOptions options) {
        this.directory = directory;
        this.options = options;
        this.durability = options.durability();
        this.capacityBytes = options.effectiveCapacity();
        this.previousShutdownClean = directory.fresh() ? null : consumeCleanShutdownMarker(directory);
        this.metadata = new MetadataStore(directory.meta(), durability == Durability.PERSISTENT);
        for (int i = 0; i < COMMIT_STRIPES; i++) {
            commitLocks[i] = new Object();
        }
        this.multipart = new MultipartUploads(this, metadata, directory);
        try {
            this.validation = new StartupValidator(directory, metadata, multipart).run();
        } catch (RuntimeException e) {
            metadata.close();
            throw e;
        }
        allocatedBytes.set(validation.bytes());
        objectCount.set(validation.objects());
        this.tiers = new Tiers(options, directory, (bucket, key, fileId) -> dropIfCurrent(bucket, key, fileId));
        this.stats = new TierStats(tiers);
    }

    /**
     * Opens the store under {@code dataDirectory} and validates it.
     *
     * @param capacityBytes total bytes of object bodies this node accepts
     */
    public static ObjectStore open(Path dataDirectory, Durability durability, long capacityBytes) {
        return open(StoreOptions.diskOnly(dataDirectory, durability, capacityBytes));
    }

    /** Opens the store with the given tiering and validates it. */
    public static ObjectStore open(StoreOptions options) {
        return new ObjectStore(new DataDirectory(options.dataDir()), options);
    }

    /** RAM tier, writer and read-path counters. */
    public TierStats tierStats() {
        return stats;
    }

    public StoreOptions options() {
        return options;
    }

    /** Whether the previous run stopped cleanly (writer drained); null on the first start of the data directory. */
    public Boolean previousShutdownClean() {
        return previousShutdownClean;
    }

    /** Multipart uploads into this store. */
    public MultipartUploads multipart() {
        return multipart;
    }

    /** What startup validation cleaned. */
    public ValidationReport validation() {
        return validation;
    }

    public Durability durability() {
        return durability;
    }

    public long capacityBytes() {
        return capacityBytes;
    }

    /** Bytes of committed objects plus bytes reserved by uploads in progress. */
    public long usedBytes() {
        return allocatedBytes.get();
    }

    public long objectCount() {
        return objectCount.get();
    }

    // ---- buckets

    /** Creates a bucket; false if it exists already. */
    public boolean createBucket(String bucket) {
        return metadata.createBucket(Names.checkBucket(bucket), System.currentTimeMillis());
    }

    /** Creation time of an existing bucket; {@code NoSuchBucket} otherwise. */
    public long bucketCreated(String bucket) {
        return metadata.bucketCreated(bucket).orElseThrow(() -> noSuchBucket(bucket));
    }

    public Map<String, Long> listBuckets() {
        return metadata.listBuckets();
    }

    /** Deletes an empty bucket: {@code NoSuchBucket} or {@code BucketNotEmpty} otherwise. */
    public void deleteBucket(String bucket) {
        bucketLifecycle.writeLock().lock();
        try {
            bucketCreated(bucket);
            if (metadata.hasObjects(bucket)) {
                throw new S3Exception(S3ErrorCode.BUCKET_NOT_EMPTY,
                        "The bucket '" + bucket + "' is not empty: delete its objects first.");
            }
            metadata.deleteBucket(bucket);
        } finally {
            bucketLifecycle.writeLock().unlock();
        }
    }

    // ---- objects

    /**
     * Starts a PUT. Use in try-with-resources: closing an uncommitted upload aborts it.
     *
     * @param declaredLength Content-Length of the body, or -1 if unknown (capacity is then reserved as bytes arrive)
     */
    public ObjectUpload beginPut(String bucket, String key, long declaredLength, String contentType,
            Map<String, String> userMetadata) {
        bucketCreated(bucket);
        Names.checkKey(key);
        try {
            return new ObjectUpload(this, (meta, reserved, ram, onDisk) -> commit(bucket, key, meta, reserved, ram,
                    onDisk), declaredLength, contentType, userMetadata, tiers.sinkFor(declaredLength));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start writing " + bucket + "/" + key, e);
        }
    }

    /** The object's metadata; {@code NoSuchBucket} or {@code NoSuchKey} if absent. */
    public ObjectMeta head(String bucket, String key) {
        // the object read alone decides a hit (a bucket with objects cannot be deleted); the bucket is read only
        // to tell NoSuchBucket from NoSuchKey
        return metadata.getObject(bucket, key).orElseThrow(() -> {
            bucketCreated(bucket);
            return new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key);
        });
    }

    /**
     * Where to read an object's body: RAM (a retained view the caller releases) or its file (range GETs use it with
     * sendfile). Null if the object was replaced or deleted since {@code meta} was read (the caller reads it again).
     * A body found nowhere is a stale entry: it is dropped and the GET is {@code NoSuchKey}. With verify-on-read, a
     * file whose CRC32C differs from the metadata is dropped too (500, the object is gone).
     */
    public ObjectBody openBody(String bucket, String key, ObjectMeta meta) {
        if (meta.isInline()) {
            return ObjectBody.inRam(Unpooled.wrappedBuffer(meta.inline()));
        }
        ObjectBody body = tiers.open(meta.fileId());
        if (body == null) {
            if (!dropIfCurrent(bucket, key, meta.fileId())) {
                return null;
            }
            throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                    + " (its body was lost; the entry has been removed)");
        }
        if (body.file() != null && options.verifyOnRead() && !StartupValidator.hasChecksum(body.file(), meta)) {
            stats.corruptOnRead.increment();
            dropIfCurrent(bucket, key, meta.fileId());
            throw new S3Exception(S3ErrorCode.INTERNAL_ERROR, "The stored body of " + key
                    + " failed its CRC32C check and was removed. Store the object again.");
        }
        return body;
    }

    /** Deletes an object; idempotent (no error if absent). {@code NoSuchBucket} if the bucket is missing. */
    public void delete(String bucket, String key) {
        bucketCreated(bucket);
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> existing = metadata.getObject(bucket, key);
            if (existing.isEmpty()) {
                return;
            }
            metadata.deleteObject(bucket, key);
            removeBody(existing.get());
        }
    }

    /** Lists a bucket's keys (S3 ListObjectsV2 semantics). */
    public ListPage list(String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        bucketCreated(bucket);
        return new ObjectLister(metadata).list(bucket, prefix, delimiter, startAfter, maxKeys);
    }

    // ---- used by ObjectUpload

    DataDirectory directory() {
        return directory;
    }

    Tiers tiers() {
        return tiers;
    }

    /** Reserves capacity or refuses with {@code InsufficientStorage}. */
    void reserve(long bytes) {
        long current;
        do {
            current = allocatedBytes.get();
            if (current + bytes > capacityBytes) {
                throw new S3Exception(S3ErrorCode.INSUFFICIENT_STORAGE, "Not enough free capacity: " + bytes
                        + " bytes requested, " + Math.max(0, capacityBytes - current) + " of " + capacityBytes
                        + " free. Nothing was written.");
            }
        } while (!allocatedBytes.compareAndSet(current, current + bytes));
    }

    void release(long bytes) {
        allocatedBytes.addAndGet(-bytes);
    }

    /**
     * Puts the body in place (the file renamed into {@code objects/} when {@code onDisk}, the RAM copy into the RAM
     * tier) and writes the index entry; the replaced object's body is removed after. Takes over {@code ram}.
     */
    void commit(String bucket, String key, ObjectMeta meta, long reservedBytes, ByteBuf ram, boolean onDisk)
            throws IOException {
        Path part = directory.partFile(meta.fileId());
        Path target = directory.objectFile(meta.fileId());
        try {
            if (onDisk && options.policy() == TierPolicy.RAM_ONLY) {
                // a completed multipart object on a RAM-only node
                ram = tiers.load(part, meta.size());
                Files.delete(part);
                onDisk = false;
            } else if (onDisk) {
                Files.createDirectories(target.getParent());
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
                if (durability == Durability.PERSISTENT) {
                    DataDirectory.syncDirectory(target.getParent());
                    DataDirectory.syncDirectory(directory.tmp());
                }
            }
        } catch (IOException | RuntimeException e) {
            if (ram != null) {
                ram.release();
            }
            throw e;
        }
        if (ram != null) {
            // before the entry: a body only in RAM must be readable as soon as the entry is visible
            tiers.admit(bucket, key, meta.fileId(), ram, onDisk);
        }
        bucketLifecycle.readLock().lock();
        try {
            commitEntry(bucket, key, meta, reservedBytes, target);
        } finally {
            bucketLifecycle.readLock().unlock();
        }
    }

    private void commitEntry(String bucket, String key, ObjectMeta meta, long reservedBytes, Path target)
            throws IOException {
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> replaced;
            try {
                if (metadata.bucketCreated(bucket).isEmpty()) {
                    throw noSuchBucket(bucket);
                }
                replaced = metadata.getObject(bucket, key);
                metadata.putObject(bucket, key, meta);
            } catch (RuntimeException e) {
                // the upload's abort releases the reservation
                tiers.forget(meta.fileId());
                Files.deleteIfExists(target);
                throw e;
            }
            allocatedBytes.addAndGet(meta.size() - reservedBytes);
            objectCount.incrementAndGet();
            replaced.ifPresent(this::removeBody);
        }
    }

    /**
     * Drops the entry of {@code bucket/key} if it still names {@code fileId} (its body is lost or corrupt).
     *
     * @return whether it did; false if the object was replaced or deleted meanwhile
     */
    private boolean dropIfCurrent(String bucket, String key, String fileId) {
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> current = metadata.getObject(bucket, key);
            if (current.isEmpty() || !current.get().fileId().equals(fileId)) {
                return false;
            }
            metadata.deleteObject(bucket, key);
            removeBody(current.get());
            stats.staleCleaned.increment();
            LOG.warn("Stale entry cleaned: {}/{} (body {} is neither in RAM nor on disk, or is corrupt)", bucket, key,
                    fileId);
            return true;
        }
    }

    private void removeBody(ObjectMeta meta) {
        tiers.forget(meta.fileId());
        try {
            Files.deleteIfExists(directory.objectFile(meta.fileId()));
        } catch (IOException e) {
            // the startup validation removes it as an orphan
            LOG.warn("Could not delete body file {}: {}", meta.fileId(), e.toString());
        }
        allocatedBytes.addAndGet(-meta.size());
        objectCount.decrementAndGet();
    }

    private Object commitLock(String bucket, String key) {
        return commitLocks[Math.floorMod(31 * bucket.hashCode() + key.hashCode(), COMMIT_STRIPES)];
    }

    private static S3Exception noSuchBucket(String bucket) {
        return new S3Exception(S3ErrorCode.NO_SUCH_BUCKET, "The specified bucket does not exist: " + bucket);
    }

    /**
     * Graceful stop: bodies only in RAM are written to disk (except on a RAM-only node), the writer drains, then the
     * metadata store closes. A clean stop leaves a marker that the next start reports. Uploads in progress must be
     * finished first. Idempotent.
     *
     * @return whether the stop was clean (every body that should reach disk did)
     */
    public synchronized boolean stop() {
        if (closed) {
            return true;
        }
        closed = true;
        boolean clean = tiers.stop(options.drainTimeout());
        metadata.close();
        if (clean) {
            try {
                Files.writeString(directory.cleanShutdownMarker(), "clean\n");
            } catch (IOException e) {
                LOG.warn("Could not write the clean-shutdown marker: {}", e.toString());
            }
        }
        LOG.info("Object store stopped {}: writer saves={} failures={} dedup_skips={} queue_full_fallbacks={}",
                clean ? "cleanly" : "UNCLEANLY (bodies not yet on disk are lost)", stats.writerSaves(),
                stats.writerFailures(), stats.writerDedupSkips(), stats.writerQueueFullFallbacks());
        return clean;
    }

    @Override
    public void close() {
        stop();
    }

    private static Boolean consumeCleanShutdownMarker(DataDirectory directory) {
        try {
            return Files.deleteIfExists(directory.cleanShutdownMarker());
        } catch (IOException e) {
            return false;
        }
    }
}
