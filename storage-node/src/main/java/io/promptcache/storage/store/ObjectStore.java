package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.promptcache.schema.node.NodeMarkers;
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
    private final Tiers tiers;
    private final TierStats stats;
    /** Null on the first start of a data directory. */
    private final Boolean previousShutdownClean;
    private final ValidationReport validation;
    private final MultipartUploads multipart;
    private final ExtentRefs refs;
    private final Trims trims;
    private final RoomOrder room = new RoomOrder();
    private final Capacity capacity;
    /**
     * What a NoSuchKey says of an eviction candidate this node deleted for room lately: lookups may still return it
     * until the GC reads the node's next heartbeat (the engine's 404 then costs one miss, and its invalidate is a
     * no-op).
     */
    public static final String RECLAIMED = " (" + NodeMarkers.RECLAIMED
            + ": an eviction candidate of the GC, or unused long enough)";
    /** Logical bytes: the sum of the objects' sizes (shared bytes counted once per object). */
    private final AtomicLong logicalBytes = new AtomicLong();
    private final AtomicLong objectCount = new AtomicLong();
    private final Object[] commitLocks = new Object[COMMIT_STRIPES];
    /** Commits hold it shared, DeleteBucket exclusively: no object lands in a bucket being deleted. */
    private final ReentrantReadWriteLock bucketLifecycle = new ReentrantReadWriteLock();
    private boolean closed;

    private ObjectStore(DataDirectory directory, StoreOptions options) {
        this.directory = directory;
        this.options = options;
        this.durability = options.durability();
        this.previousShutdownClean = directory.fresh() ? null : consumeCleanShutdownMarker(directory);
        this.metadata = new MetadataStore(directory.meta(), durability == Durability.PERSISTENT);
        for (int i = 0; i < COMMIT_STRIPES; i++) {
            commitLocks[i] = new Object();
        }
        this.multipart = new MultipartUploads(this, metadata, directory);
        this.refs = new ExtentRefs(metadata);
        this.trims = new Trims(directory, options);
        try {
            this.validation = new StartupValidator(directory, metadata, multipart, refs, room).run();
        } catch (RuntimeException e) {
            metadata.close();
            throw e;
        }
        logicalBytes.set(validation.logicalBytes());
        objectCount.set(validation.objects());
        this.tiers = new Tiers(options, directory, (bucket, key, fileId) -> dropIfCurrent(bucket, key, fileId));
        trims.attach(tiers);
        refs.trimWith(trims);
        this.stats = new TierStats(tiers);
        this.capacity = new Capacity(options, validation.bytes(), metadata, refs, room, stats, new Capacity.Deleter() {

            @Override
            public Object commitLock(String bucket, String key) {
                return ObjectStore.this.commitLock(bucket, key);
            }

            @Override
            public void remove(String bucket, String key, ObjectMeta meta) {
                ObjectStore.this.remove(bucket, key, meta);
            }
        });
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
        return capacity.capacityBytes();
    }

    /**
     * Physical bytes: committed bodies (a body file shared by several objects counts once), parts of uploads in
     * progress, and bytes reserved by uploads in progress. Capacity is checked against it.
     */
    public long usedBytes() {
        return capacity.allocated();
    }

    /** Logical bytes: the sum of the committed objects' sizes (what they would cost without sharing). */
    public long logicalBytes() {
        return logicalBytes.get();
    }

    /** Body files held by at least one object or copied part. */
    public int bodyFileCount() {
        return refs.fileCount();
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
        return beginPut(bucket, key, declaredLength, new ObjectHeaders(contentType, Map.of(), userMetadata),
                WriteCondition.NONE);
    }

    /**
     * Starts a PUT of an object with these headers and a condition, checked now (before any byte is received) and
     * again at the commit.
     */
    public ObjectUpload beginPut(String bucket, String key, long declaredLength, ObjectHeaders headers,
            WriteCondition condition) {
        bucketCreated(bucket);
        Names.checkKey(key);
        checkCondition(bucket, key, condition);
        try {
            return new ObjectUpload(this, (meta, sums, reserved, ram, onDisk) -> commit(bucket, key, meta, sums,
                    reserved, ram, onDisk, condition), declaredLength, headers, tiers.sinkFor(declaredLength));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start writing " + bucket + "/" + key, e);
        }
    }

    /** Checks a write's preconditions against the object under the key now (see {@link WriteCondition}). */
    public void checkCondition(String bucket, String key, WriteCondition condition) {
        if (condition.isConditional()) {
            condition.check(metadata.getObject(bucket, key), key);
        }
    }

    /** The object's metadata; {@code NoSuchBucket} or {@code NoSuchKey} if absent. */
    public ObjectMeta head(String bucket, String key) {
        // the object read alone decides a hit (a bucket with objects cannot be deleted); the bucket is read only
        // to tell NoSuchBucket from NoSuchKey
        return metadata.getObject(bucket, key).orElseThrow(() -> {
            bucketCreated(bucket);
            return new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                    + (capacity.reclaimed().contains(bucket, key, System.currentTimeMillis()) ? RECLAIMED : ""));
        });
    }

    /**
     * Where to read bytes {@code [offset, offset + length)} of an object's body: one segment per extent it covers,
     * each in RAM (a retained view the caller releases) or in its file (range GETs use it with sendfile). Null if the
     * object was replaced or deleted since {@code meta} was read (the caller reads it again). A body file found
     * nowhere makes the entry stale: it is dropped and the GET is {@code NoSuchKey}. With verify-on-read (the
     * default), the chunks of a file the range touches are checked against their CRC32C first (blocking reads, like
     * sendfile's) and a range up to {@link #KEPT_CHECKED_BYTES} is then served from the checked bytes (a RAM
     * segment); a file that fails is corrupt: the entry is dropped, counted, and the GET is {@code NoSuchKey}, so a
     * client treats it as the miss it now is.
     */
    public List<BodySegment> openRange(String bucket, String key, ObjectMeta meta, long offset, long length) {
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
            ObjectBody body = tiers.open(extent.fileId());
            if (body == null || body.file() == null || !options.verifyOnRead()) {
                if (body == null) {
                    segments.forEach(BodySegment::release);
                    return failedRead(bucket, key, meta, null);
                }
                segments.add(new BodySegment(body, extent.offset(), extent.length()));
                continue;
            }
            ChunkSums.Checked checked = check(body.file(), extent, keep);
            if (checked.badChunk() >= 0) {
                segments.forEach(BodySegment::release);
                return failedRead(bucket, key, meta, "chunk " + checked.badChunk() + " of body file "
                        + extent.fileId() + " does not match its CRC32C");
            }
            segments.add(checked.span() != null
                    ? new BodySegment(ObjectBody.checked(checked.span(), body.file()),
                            extent.offset() - checked.spanStart(),
                            extent.length())
                    : new BodySegment(body, extent.offset(), extent.length()));
        }
        return segments;
    }

    /**
     * Ranges up to this long are sent from the very bytes their check read (pooled off-heap buffers); a longer one
     * is checked, then sent from its file with sendfile (memory stays bounded; a byte rewritten in the file between
     * the check and the send would go out unchecked).
     */
    public static final long KEPT_CHECKED_BYTES = 4L << 20;

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

    private static ChunkSums.Checked check(Path file, Extent extent, boolean keep, ExtentRefs.FileEntry entry) {
        if (entry == null || entry.sums() == null) {
            LOG.warn("Body file {} has no checksums on record", extent.fileId());
            return new ChunkSums.Checked(null, 0, 0);
        }
        try {
            return entry.sums().check(file, entry.size(), extent.offset(), extent.length(), keep);
        } catch (IOException e) {
            LOG.warn("Body file {} cannot be read: {}", extent.fileId(), e.toString());
            return new ChunkSums.Checked(null, 0, 0);
        }
    }

    private List<BodySegment> failedRead(String bucket, String key, ObjectMeta meta, String corruption) {
        if (corruption == null) {
            if (!dropIfCurrent(bucket, key, meta.fileId())) {
                return null;
            }
            throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                    + " (its body was lost; the entry has been removed)");
        }
        if (!dropIfCurrent(bucket, key, meta.fileId())) {
            // replaced or deleted meanwhile (a trimmed or deleted file reads short): read it again
            return null;
        }
        stats.corruptOnRead.increment();
        LOG.error("Removed {}/{}: {} (the bytes on disk changed since they were written)", bucket, key, corruption);
        throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                + " (its stored body failed its checksum and was removed; store the object again)");
    }

    /**
     * Bytes {@code [offset, offset + length)} of {@code bucket/key} were read (a range GET, a copied part). A read of
     * the whole object sends an eviction candidate to the back; a read of a prefix does not: a prefix read is a
     * partial hit, whose bytes the continuation stored next holds (and keeps while the rest of this object goes).
     */
    public void used(String bucket, String key, ObjectMeta meta, long offset, long length) {
        if (offset == 0 && length >= meta.size()) {
            room.used(bucket, key, System.currentTimeMillis());
        }
    }

    /** Deletes an object; idempotent (no error if absent). {@code NoSuchBucket} if the bucket is missing. */
    public void delete(String bucket, String key) {
        delete(bucket, key, WriteCondition.NONE);
    }

    /** Deletes an object if it meets {@code condition} (If-Match), checked under the key's lock. */
    public void delete(String bucket, String key, WriteCondition condition) {
        bucketCreated(bucket);
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> existing = metadata.getObject(bucket, key);
            if (condition.isConditional()) {
                condition.check(existing, key);
            }
            if (existing.isEmpty()) {
                stats.deletesOfAbsent.increment();
                return;
            }
            remove(bucket, key, existing.get());
            stats.deletes.increment();
        }
    }

    /**
     * CopyObject: {@code dstBucket/dstKey} becomes a new object sharing the source's body files (no byte is copied
     * or counted again; an inline source's bytes are copied, they are small).
     *
     * @param replaced the copy's Content-Type, content headers and user metadata, or null to keep the source's
     */
    public ObjectMeta copy(ObjectMeta source, String dstBucket, String dstKey, ObjectHeaders replaced,
            WriteCondition condition) {
        bucketCreated(dstBucket);
        Names.checkKey(dstKey);
        checkCondition(dstBucket, dstKey, condition);
        ObjectHeaders headers = replaced == null ? ObjectHeaders.of(source) : replaced;
        ObjectMeta copy = source.with(DataDirectory.newFileId(), System.currentTimeMillis(), headers.contentType(),
                headers.headers(), headers.userMetadata());
        long physical = copy.isInline() ? copy.size() : 0;
        reserve(physical);
        ExtentRefs.Change change = new ExtentRefs.Change().retain(copy.bodyExtents());
        install(dstBucket, dstKey, new Install(copy, change, batch -> {
        }, physical, physical, condition), () -> release(physical));
        return copy;
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

    ExtentRefs refs() {
        return refs;
    }

    /**
     * Writes {@code bytes} as the body file {@code fileId} (temporary file, fsync per durability, rename): a file
     * no record holds yet, so a crash before its record leaves an orphan for startup validation.
     */
    void writeBodyFile(String fileId, ByteBuffer bytes) throws IOException {
        Path part = directory.partFile(fileId);
        Path target = directory.objectFile(fileId);
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
            if (durability == Durability.PERSISTENT) {
                channel.force(true);
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(part);
            throw e;
        }
        Files.createDirectories(target.getParent());
        Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        if (durability == Durability.PERSISTENT) {
            DataDirectory.syncDirectory(target.getParent());
        }
    }

    /** Reserves capacity, making room when short ({@link Capacity#reserve}). */
    void reserve(long bytes) {
        capacity.reserve(bytes);
    }

    /** The eviction candidates and own objects this node deleted for writes lately (heartbeats report them). */
    public ReclaimLog reclaimed() {
        return capacity.reclaimed();
    }

    /**
     * Physical bytes that deleting every marked object (evicted or candidate) would free now: the body files all of
     * whose holders are marked, plus their inline bodies. Heartbeats report it so placement counts it as room.
     */
    public long reclaimableBytes() {
        return capacity.reclaimableBytes();
    }

    void release(long bytes) {
        capacity.release(bytes);
    }

    /**
     * Puts the body in place (the file renamed into {@code objects/} when {@code onDisk}, the RAM copy into the RAM
     * tier) and writes the index entry with the body file's record ({@code sums}: its chunk checksums); the replaced
     * object's body is removed after. Takes over {@code ram}.
     */
    void commit(String bucket, String key, ObjectMeta meta, ChunkSums sums, long reservedBytes, ByteBuf ram,
            boolean onDisk, WriteCondition condition) throws IOException {
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
            commitEntry(bucket, key, meta, sums, reservedBytes, target, condition);
        } finally {
            bucketLifecycle.readLock().unlock();
        }
    }

    /**
     * A new version of an object, ready to be indexed.
     *
     * @param meta the object's entry
     * @param change the references the entry adds (its new body files, the shared ones it retains) and any others
     *        that change with it
     * @param extra further record changes written in the same batch
     * @param physicalBytes bytes the new version adds on this node (its new body files or inline body)
     * @param reservedBytes capacity reserved for it, released now
     * @param condition the write's preconditions on the version it replaces, checked again under the key's lock
     */
    record Install(ObjectMeta meta, ExtentRefs.Change change, Consumer<MetadataStore.Batch> extra, long physicalBytes,
            long reservedBytes, WriteCondition condition) {
    }

    /** Writes a PUT's entry; a failure forgets its body, whose upload then aborts and releases the reservation. */
    private void commitEntry(String bucket, String key, ObjectMeta meta, ChunkSums sums, long reservedBytes,
            Path target, WriteCondition condition) throws IOException {
        ExtentRefs.Change change = new ExtentRefs.Change();
        if (!meta.isInline()) {
            change.add(meta.fileId(), meta.size(), meta.crc32c(), sums);
        }
        try {
            commitEntry(bucket, key, new Install(meta, change, batch -> {
            }, meta.size(), reservedBytes, condition), () -> tiers.forget(meta.fileId()));
        } catch (RuntimeException e) {
            Files.deleteIfExists(target);
            throw e;
        }
    }

    /** Indexes a new version of {@code bucket/key} (see {@link #commitEntry(String, String, Install, Runnable)}). */
    void install(String bucket, String key, Install install, Runnable undo) {
        bucketLifecycle.readLock().lock();
        try {
            commitEntry(bucket, key, install, undo);
        } finally {
            bucketLifecycle.readLock().unlock();
        }
    }

    /**
     * Indexes a new version of {@code bucket/key} in one batch with its references, releasing the replaced
     * version's; runs {@code undo} if nothing was written. The caller holds the bucket lifecycle's read lock.
     */
    private void commitEntry(String bucket, String key, Install install, Runnable undo) {
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> replaced;
            List<ExtentRefs.Freed> freed;
            try (MetadataStore.Batch batch = metadata.batch()) {
                if (metadata.bucketCreated(bucket).isEmpty()) {
                    throw noSuchBucket(bucket);
                }
                replaced = metadata.getObject(bucket, key);
                install.condition().checkAtCommit(replaced, key);
                batch.putObject(bucket, key, install.meta());
                install.extra().accept(batch);
                replaced.ifPresent(r -> install.change().release(r.bodyExtents()));
                freed = refs.commit(batch, install.change());
            } catch (RuntimeException e) {
                undo.run();
                throw e;
            }
            capacity.adjust(install.physicalBytes() - install.reservedBytes());
            logicalBytes.addAndGet(install.meta().size());
            objectCount.incrementAndGet();
            replaced.ifPresent(this::forgetCounts);
            free(freed);
            room.update(bucket, key, install.meta());
        }
    }

    /** Removes the entry and its references in one batch, then the body files nothing holds any more. */
    private void remove(String bucket, String key, ObjectMeta meta) {
        List<ExtentRefs.Freed> freed;
        try (MetadataStore.Batch batch = metadata.batch()) {
            batch.deleteObject(bucket, key);
            freed = refs.commit(batch, new ExtentRefs.Change().release(meta.bodyExtents()));
        }
        // its body files leave the tiers only once nothing holds them (free): a copy may still read them
        room.forget(bucket, key);
        forgetCounts(meta);
        free(freed);
    }

    private void forgetCounts(ObjectMeta removed) {
        if (removed.isInline()) {
            capacity.release(removed.size());
        }
        logicalBytes.addAndGet(-removed.size());
        objectCount.decrementAndGet();
    }

    /**
     * Deletes body files whose last reference went (a crash before leaves orphans for startup validation) and trims
     * those whose tail nobody reads any more ({@link Trims}).
     */
    void free(List<ExtentRefs.Freed> freed) {
        for (ExtentRefs.Freed file : freed) {
            // a trimmed file's RAM copy is clean (Trims only trims files on disk): it is dropped with its old size
            tiers.forget(file.fileId());
            if (file.deleted()) {
                try {
                    Files.deleteIfExists(directory.objectFile(file.fileId()));
                } catch (IOException e) {
                    // the startup validation removes it as an orphan
                    LOG.warn("Could not delete body file {}: {}", file.fileId(), e.toString());
                }
            } else {
                trims.truncateLater(file.fileId(), file.keep());
                stats.trimmed.increment();
            }
            capacity.release(file.bytes());
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
            remove(bucket, key, current.get());
            stats.staleCleaned.increment();
            LOG.warn("Stale entry cleaned: {}/{} (body {} is neither in RAM nor on disk, or is corrupt)", bucket, key,
                    fileId);
            return true;
        }
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
        trims.close();
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
