package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;

/**
 * The objects' entries: the one writer of object records and of the body-file references they hold. A version is
 * indexed in one batch with its references under its key's commit lock, and the replaced version's body files go
 * once nothing holds them; a removal is the reverse. Keeps the logical bytes, the object count and
 * {@link RoomOrder} in step, and gives back to {@link Allocation} what is freed.
 */
final class Entries {

    private static final Logger LOG = LoggerFactory.getLogger(Entries.class);
    private static final int COMMIT_STRIPES = 64;

    private final MetadataStore metadata;
    private final Buckets buckets;
    private final ExtentRefs refs;
    private final RoomOrder room;
    private final BodyFiles bodies;
    private final Trims trims;
    private final Allocation allocation;
    private final TierStats stats;
    /** Logical bytes: the sum of the objects' sizes (shared bytes counted once per object). */
    private final AtomicLong logicalBytes = new AtomicLong();
    private final AtomicLong objectCount = new AtomicLong();
    private final Object[] commitLocks = new Object[COMMIT_STRIPES];

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

    Entries(MetadataStore metadata, Buckets buckets, ExtentRefs refs, RoomOrder room, BodyFiles bodies, Trims trims,
            Allocation allocation, TierStats stats, ValidationReport validation) {
        this.metadata = metadata;
        this.buckets = buckets;
        this.refs = refs;
        this.room = room;
        this.bodies = bodies;
        this.trims = trims;
        this.allocation = allocation;
        this.stats = stats;
        for (int i = 0; i < COMMIT_STRIPES; i++) {
            commitLocks[i] = new Object();
        }
        logicalBytes.set(validation.logicalBytes());
        objectCount.set(validation.objects());
    }

    long logicalBytes() {
        return logicalBytes.get();
    }

    long objectCount() {
        return objectCount.get();
    }

    /** The object's entry now, if any. */
    Optional<ObjectMeta> get(String bucket, String key) {
        return metadata.getObject(bucket, key);
    }

    /** The object's entry if it is still version {@code versionId} (not replaced or deleted since); else null. */
    ObjectMeta current(String bucket, String key, String versionId) {
        Optional<ObjectMeta> current = metadata.getObject(bucket, key);
        return current.isPresent() && current.get().fileId().equals(versionId) ? current.get() : null;
    }

    /** Checks a write's preconditions against the object under the key now (see {@link WriteCondition}). */
    void checkCondition(String bucket, String key, WriteCondition condition) {
        if (condition.isConditional()) {
            condition.check(metadata.getObject(bucket, key), key);
        }
    }

    /**
     * Commits a finished write: the body put in place ({@link BodyFiles#place}), then the entry with the body file's
     * record ({@code sums}: its chunk checksums); the replaced object's body is removed after. Takes over
     * {@code ram}. A failed entry forgets the body, whose upload then aborts and releases the reservation.
     */
    void commitPut(String bucket, String key, ObjectMeta meta, ChunkSums sums, long reservedBytes, ByteBuf ram,
            boolean onDisk, WriteCondition condition) throws IOException {
        Path target = bodies.place(bucket, key, meta.fileId(), meta.size(), ram, onDisk);
        ExtentRefs.Change change = new ExtentRefs.Change();
        if (!meta.isInline()) {
            change.add(meta.fileId(), meta.size(), meta.crc32c(), sums);
        }
        try {
            install(bucket, key, new Install(meta, change, batch -> {
            }, meta.size(), reservedBytes, condition), () -> bodies.tiers().forget(meta.fileId()));
        } catch (RuntimeException e) {
            Files.deleteIfExists(target);
            throw e;
        }
    }

    /**
     * Indexes a new version of {@code bucket/key} in one batch with its references, releasing the replaced
     * version's; runs {@code undo} if nothing was written.
     */
    void install(String bucket, String key, Install install, Runnable undo) {
        buckets.commits().lock();
        try {
            commitEntry(bucket, key, install, undo);
        } finally {
            buckets.commits().unlock();
        }
    }

    private void commitEntry(String bucket, String key, Install install, Runnable undo) {
        synchronized (commitLock(bucket, key)) {
            Optional<ObjectMeta> replaced;
            List<ExtentRefs.Freed> freed;
            try (MetadataStore.Batch batch = metadata.batch()) {
                if (!buckets.exists(bucket)) {
                    throw Buckets.noSuchBucket(bucket);
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
            allocation.adjust(install.physicalBytes() - install.reservedBytes());
            logicalBytes.addAndGet(install.meta().size());
            objectCount.incrementAndGet();
            replaced.ifPresent(this::forgetCounts);
            free(freed);
            room.update(bucket, key, install.meta());
        }
    }

    /**
     * Deletes an object if it meets {@code condition} (If-Match), checked under the key's lock; idempotent (no error
     * if absent). {@code NoSuchBucket} if the bucket is missing.
     */
    void delete(String bucket, String key, WriteCondition condition) {
        buckets.created(bucket);
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
     * Removes the entry and its references in one batch, then the body files nothing holds any more. The caller
     * holds the key's commit lock.
     */
    void remove(String bucket, String key, ObjectMeta meta) {
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
            allocation.release(removed.size());
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
            bodies.tiers().forget(file.fileId());
            if (file.deleted()) {
                String fileId = file.fileId();
                trims.deleteWhenUnread(fileId, () -> bodies.delete(fileId)); // after the reads sending from it
            } else {
                trims.truncateLater(file.fileId(), file.keep());
                stats.trimmed.increment();
            }
            allocation.release(file.bytes());
        }
    }

    /**
     * Drops the entry of {@code bucket/key} if it still names {@code fileId} (its body is lost or corrupt).
     *
     * @return whether it did; false if the object was replaced or deleted meanwhile
     */
    boolean dropIfCurrent(String bucket, String key, String fileId) {
        synchronized (commitLock(bucket, key)) {
            ObjectMeta current = current(bucket, key, fileId);
            if (current == null) {
                return false;
            }
            remove(bucket, key, current);
            stats.staleCleaned.increment();
            LOG.warn("Stale entry cleaned: {}/{} (body {} is neither in RAM nor on disk, or is corrupt)", bucket, key,
                    fileId);
            return true;
        }
    }

    /** The lock under which {@code bucket/key}'s entry changes. */
    Object commitLock(String bucket, String key) {
        return commitLocks[Math.floorMod(31 * bucket.hashCode() + key.hashCode(), COMMIT_STRIPES)];
    }
}
