package io.promptcache.storage.store;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * Buckets and objects: bodies in files under the data directory and/or in the RAM tier (per {@link TierPolicy}),
 * metadata in RocksDB. A PUT is atomic (temporary file or RAM buffer, fsync per durability, rename, then the index
 * entry): a crash at any point never makes a partial object visible, and startup validation removes what a crash
 * left behind. Capacity is reserved before bytes are written, so an over-capacity PUT is refused without writing
 * anything.
 *
 * <p>A front over owners of one concern each, made here and handed to whoever needs them (nothing calls back up):
 * {@link Buckets} (bucket records and lifecycle), {@link Allocation} (physical bytes against capacity),
 * {@link Capacity} (room on demand), {@link BodyFiles} (where bodies are put), {@link Entries} (the one writer of
 * object records and their references), {@link RangeReads} (checked reads) and {@link MultipartUploads}.
 */
public final class ObjectStore implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ObjectStore.class);

    /**
     * What a NoSuchKey says of an eviction candidate this node deleted for room lately: lookups may still return it
     * until the GC reads the node's next heartbeat (the engine's 404 then costs one miss, and its invalidate is a
     * no-op).
     */
    public static final String RECLAIMED = " (" + NodeMarkers.RECLAIMED
            + ": an eviction candidate of the GC, or unused long enough)";
    /** See {@link RangeReads#KEPT_CHECKED_BYTES}: longer ranges are checked, then sent from their file. */
    public static final long KEPT_CHECKED_BYTES = RangeReads.KEPT_CHECKED_BYTES;

    private final DataDirectory directory;
    private final MetadataStore metadata;
    private final StoreOptions options;
    private final Tiers tiers;
    private final TierStats stats;
    private final PreviousShutdown previousShutdown;
    private final ValidationReport validation;
    private final ExtentRefs refs;
    private final Trims trims;
    private final Buckets buckets;
    private final Allocation allocation;
    private final BodyFiles bodies;
    private final Entries entries;
    private final Capacity capacity;
    private final RangeReads reads;
    private final MultipartUploads multipart;
    private boolean closed;

    private ObjectStore(DataDirectory directory, StoreOptions options) {
        this.directory = directory;
        this.options = options;
        this.previousShutdown = PreviousShutdown.consume(directory.cleanShutdownMarker(), directory.fresh());
        this.metadata = new MetadataStore(directory.meta(), options.durability() == Durability.PERSISTENT);
        this.refs = new ExtentRefs(metadata);
        this.trims = new Trims(directory, options);
        RoomOrder room = new RoomOrder();
        UploadRecords uploads = new UploadRecords(metadata, directory);
        try {
            this.validation = new StartupValidator(directory, metadata, uploads, refs, room).run();
        } catch (RuntimeException e) {
            metadata.close();
            throw e;
        }
        this.tiers = new Tiers(options, directory, this::dropLost);
        trims.attach(tiers);
        refs.trimWith(trims);
        this.stats = new TierStats(tiers);
        this.buckets = new Buckets(metadata);
        this.allocation = new Allocation(options.effectiveCapacity(), validation.bytes());
        this.bodies = new BodyFiles(directory, options, tiers);
        this.entries = new Entries(metadata, buckets, refs, room, bodies, trims, allocation, stats, validation);
        this.capacity = new Capacity(options, allocation, refs, room, stats, entries);
        this.reads = new RangeReads(options, tiers, refs, room, entries, stats, trims.readers());
        this.multipart = new MultipartUploads(buckets, uploads, metadata, refs, bodies, capacity, entries);
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

    /** How the previous run on this data directory ended. */
    public PreviousShutdown previousShutdown() {
        return previousShutdown;
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
        return options.durability();
    }

    public long capacityBytes() {
        return allocation.capacityBytes();
    }

    /**
     * Physical bytes: committed bodies (a body file shared by several objects counts once), parts of uploads in
     * progress, and bytes reserved by uploads in progress. Capacity is checked against it.
     */
    public long usedBytes() {
        return allocation.allocated();
    }

    /** Logical bytes: the sum of the committed objects' sizes (what they would cost without sharing). */
    public long logicalBytes() {
        return entries.logicalBytes();
    }

    /** Body files held by at least one object or copied part. */
    public int bodyFileCount() {
        return refs.fileCount();
    }

    public long objectCount() {
        return entries.objectCount();
    }

    // ---- buckets

    /** Creates a bucket; false if it exists already. */
    public boolean createBucket(String bucket) {
        return buckets.create(bucket);
    }

    /** Creation time of an existing bucket; {@code NoSuchBucket} otherwise. */
    public long bucketCreated(String bucket) {
        return buckets.created(bucket);
    }

    public Map<String, Long> listBuckets() {
        return buckets.list();
    }

    /** Deletes an empty bucket: {@code NoSuchBucket} or {@code BucketNotEmpty} otherwise. */
    public void deleteBucket(String bucket) {
        buckets.delete(bucket);
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
            return new ObjectUpload(capacity, bodies, (meta, sums, reserved, ram, onDisk) -> entries.commitPut(bucket,
                    key, meta, sums, reserved, ram, onDisk, condition), declaredLength, headers,
                    tiers.sinkFor(declaredLength));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start writing " + bucket + "/" + key, e);
        }
    }

    /** Checks a write's preconditions against the object under the key now (see {@link WriteCondition}). */
    public void checkCondition(String bucket, String key, WriteCondition condition) {
        entries.checkCondition(bucket, key, condition);
    }

    /** The object's metadata; {@code NoSuchBucket} or {@code NoSuchKey} if absent. */
    public ObjectMeta head(String bucket, String key) {
        // the object read alone decides a hit (a bucket with objects cannot be deleted); the bucket is read only
        // to tell NoSuchBucket from NoSuchKey
        return entries.get(bucket, key).orElseThrow(() -> {
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
        return reads.open(bucket, key, meta, offset, length);
    }

    /**
     * Bytes {@code [offset, offset + length)} of {@code bucket/key} were read (a range GET, a copied part). A read of
     * the whole object sends an eviction candidate to the back; a read of a prefix does not: a prefix read is a
     * partial hit, whose bytes the continuation stored next holds (and keeps while the rest of this object goes). Any
     * read is a use of the node's own least-recently-used order (self-eviction): a hot prefix is read in part.
     */
    public void used(String bucket, String key, ObjectMeta meta, long offset, long length) {
        reads.used(bucket, key, meta, offset, length);
    }

    /** Deletes an object; idempotent (no error if absent). {@code NoSuchBucket} if the bucket is missing. */
    public void delete(String bucket, String key) {
        delete(bucket, key, WriteCondition.NONE);
    }

    /** Deletes an object if it meets {@code condition} (If-Match), checked under the key's lock. */
    public void delete(String bucket, String key, WriteCondition condition) {
        entries.delete(bucket, key, condition);
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
        capacity.reserve(physical);
        ExtentRefs.Change change = new ExtentRefs.Change().retain(copy.bodyExtents());
        entries.install(dstBucket, dstKey, new Entries.Install(copy, change, batch -> {
        }, physical, physical, condition), () -> capacity.release(physical));
        return copy;
    }

    /** Lists a bucket's keys (S3 ListObjectsV2 semantics). */
    public ListPage list(String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        bucketCreated(bucket);
        return new ObjectLister(metadata).list(bucket, prefix, delimiter, startAfter, maxKeys);
    }

    /** Body files a range read is sending from now (their deletes and trims wait for it). */
    public int filesBeingRead() {
        return trims.readers().files();
    }

    /** Deletes and trims of body files that waited for a read in flight, since start. */
    public long deferredForReads() {
        return trims.readers().deferred();
    }

    /** The eviction candidates and own objects this node deleted for writes lately (heartbeats report them). */
    public ReclaimLog reclaimed() {
        return capacity.reclaimed();
    }

    /**
     * Retires objects ahead of need while the node's room is under {@code targetRoomBytes} (docs/architecture.md,
     * "Retiring"), then deletes those retired for the self-eviction age; the heartbeat calls it before it lists
     * {@link #retiring()}. {@code reclaimableBytes}: what the GC's marks free ({@link #reclaimableBytes()}).
     */
    public void retireAhead(long targetRoomBytes, long reclaimableBytes) {
        capacity.retireAhead(targetRoomBytes, reclaimableBytes);
        while (capacity.deleteRetired(options.selfEvictAfter().toMillis())) {
            // each deleted one is reported on reclaims
        }
    }

    /** The {@code bucket/key} of each object this node retires: what its heartbeats list. */
    public List<String> retiring() {
        return capacity.retiring().names();
    }

    /** How many objects retire now. */
    public int retiringCount() {
        return capacity.retiring().size();
    }

    /** A heartbeat listing {@code names} ({@link #retiring()}) was delivered at {@code atMs}. */
    public void retiringAnnounced(List<String> names, long atMs) {
        capacity.retiring().announced(names, atMs);
    }

    /**
     * Physical bytes that deleting every marked object (evicted or candidate) would free now: the body files all of
     * whose holders are marked, plus their inline bodies. Heartbeats report it so placement counts it as room.
     */
    public long reclaimableBytes() {
        return capacity.reclaimableBytes();
    }

    /** Used by tests: where the store keeps its files. */
    DataDirectory directory() {
        return directory;
    }

    /** The tiers lost a body: its entry goes if it still names that file. */
    private void dropLost(String bucket, String key, String fileId) {
        entries.dropIfCurrent(bucket, key, fileId);
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
        try {
            PreviousShutdown.mark(directory.cleanShutdownMarker(), clean);
        } catch (IOException e) {
            LOG.warn("Could not write the shutdown marker: {}", e.toString());
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
}
