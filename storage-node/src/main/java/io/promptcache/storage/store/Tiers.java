package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.internal.PlatformDependent;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * The RAM tier and the background disk writer, put together per {@link TierPolicy}: where an upload's bytes go,
 * what happens to a committed body, where a read finds it, and what a graceful stop flushes.
 */
final class Tiers {

    private static final Logger LOG = LoggerFactory.getLogger(Tiers.class);

    /** Where an upload writes its bytes. */
    enum Sink {
        /** The body goes into its index entry (small bodies, {@code inline-threshold-bytes}). */
        INLINE,
        FILE,
        FILE_AND_RAM,
        RAM
    }

    /** What the tiers need from the store when a body is lost. */
    interface LostBodies {

        /** Drops the entry of {@code bucket/key} if it still names {@code fileId}: its body exists nowhere. */
        void dropIfCurrent(String bucket, String key, String fileId);
    }

    private static final int GROWABLE_INITIAL_BYTES = 64 << 10;

    private final StoreOptions options;
    private final DataDirectory directory;
    private final LostBodies lost;
    /** Null when the RAM budget is 0. */
    private final RamTier ram;
    /** Null unless bodies can be in RAM and not on disk (evict_only, async write_through). */
    private final DiskWriter writer;

    Tiers(StoreOptions options, DataDirectory directory, LostBodies lost) {
        this.options = options;
        this.directory = directory;
        this.lost = lost;
        this.ram = options.ramCapacityBytes() > 0 ? new RamTier(options.ramCapacityBytes()) : null;
        if (options.ramCapacityBytes() > PlatformDependent.maxDirectMemory()) {
            LOG.warn("The RAM tier budget ({} bytes) exceeds the JVM's direct memory ({} bytes): PUTs will be refused"
                    + " when it runs out. Raise -XX:MaxDirectMemorySize.", options.ramCapacityBytes(),
                    PlatformDependent.maxDirectMemory());
        }
        boolean needsWriter = options.policy() == TierPolicy.EVICT_ONLY || options.asyncWrites();
        this.writer = needsWriter
                ? new DiskWriter(directory, options.durability(), options.writerQueueSize(), options.writeRetries(),
                        new DiskWriter.Listener() {

                            @Override
                            public void saved(DiskWriter.Job job) {
                                ram.markClean(job.fileId);
                            }

                            @Override
                            public void failed(DiskWriter.Job job, IOException cause) {
                                if (!ram.contains(job.fileId)) {
                                    lost.dropIfCurrent(job.bucket, job.key, job.fileId);
                                }
                            }
                        })
                : null;
    }

    /** One off-heap buffer holds at most this (Netty buffers are int-indexed). */
    static final long MAX_BUFFER_BYTES = Integer.MAX_VALUE - 8;

    /** The largest body kept in RAM: half the budget (a larger one would empty the tier), at most 2 GiB. */
    long maxRamObjectBytes() {
        long budget = options.policy() == TierPolicy.RAM_ONLY
                ? options.ramCapacityBytes()
                : options.ramCapacityBytes() / 2;
        return Math.min(budget, MAX_BUFFER_BYTES);
    }

    Sink sinkFor(long declaredLength) {
        if (options.policy() != TierPolicy.RAM_ONLY && declaredLength >= 0
                && declaredLength <= options.inlineThresholdBytes()) {
            return Sink.INLINE;
        }
        if (ram == null) {
            return Sink.FILE;
        }
        if (options.policy() == TierPolicy.RAM_ONLY) {
            return Sink.RAM;
        }
        if (declaredLength < 0 || declaredLength > maxRamObjectBytes()) {
            return Sink.FILE;
        }
        return options.policy() == TierPolicy.WRITE_THROUGH && !options.asyncWrites() ? Sink.FILE_AND_RAM : Sink.RAM;
    }

    /** An off-heap buffer for an upload's bytes: exactly sized when the length is known, else growable. */
    ByteBuf allocate(long declaredLength) {
        if (declaredLength > maxRamObjectBytes()) {
            throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE, "This node keeps bodies in RAM, where one object"
                    + " may hold at most " + maxRamObjectBytes() + " bytes; this one has " + declaredLength + ".");
        }
        try {
            if (declaredLength >= 0) {
                return UnpooledByteBufAllocator.DEFAULT.directBuffer((int) declaredLength, (int) declaredLength);
            }
            int max = (int) maxRamObjectBytes();
            return UnpooledByteBufAllocator.DEFAULT.directBuffer(Math.min(GROWABLE_INITIAL_BYTES, max), max);
        } catch (OutOfMemoryError e) {
            // Netty's OutOfDirectMemoryError: the RAM budget is larger than the JVM's direct memory
            throw new S3Exception(S3ErrorCode.INSUFFICIENT_STORAGE, "The node is out of direct memory for its RAM"
                    + " tier (raise -XX:MaxDirectMemorySize or lower promptcache.storage.tier.ram-capacity-bytes);"
                    + " nothing was written.", e);
        }
    }

    /** Reads a body file into RAM (a multipart object completed on a RAM-only node). */
    ByteBuf load(Path file, long size) throws IOException {
        ByteBuf body = allocate(size);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            while (body.isWritable()) {
                if (body.writeBytes(channel, body.writerIndex(), body.writableBytes()) < 0) {
                    throw new IOException("body file shorter than " + size + " bytes: " + file);
                }
            }
        } catch (IOException | RuntimeException e) {
            body.release();
            throw e;
        }
        return body;
    }

    /**
     * Takes a committed upload's RAM copy (the tier owns the reference afterwards). A body not on disk is queued for
     * the writer under async write_through; under evict_only it reaches disk when evicted.
     */
    void admit(String bucket, String key, String fileId, ByteBuf body, boolean onDisk) {
        List<DiskWriter.Job> jobs = new ArrayList<>();
        if (!onDisk && writer != null && options.policy() == TierPolicy.WRITE_THROUGH) {
            DiskWriter.Job job = writer.register(bucket, key, fileId, body);
            if (job != null) {
                jobs.add(job);
            }
        }
        List<RamTier.Entry> victims = ram.admit(new RamTier.Entry(bucket, key, fileId, body, !onDisk), victim -> {
            if (writer != null) {
                DiskWriter.Job job = writer.register(victim.bucket, victim.key, victim.fileId, victim.body);
                if (job != null) {
                    jobs.add(job);
                }
            }
        });
        for (RamTier.Entry victim : victims) {
            if (victim.dirty && writer == null) {
                lost.dropIfCurrent(victim.bucket, victim.key, victim.fileId);
            }
            victim.body.release();
        }
        for (DiskWriter.Job job : jobs) {
            writer.submit(job);
        }
    }

    /** Where the body is now: RAM, a pending write, or its file; null if it is nowhere (a stale entry). */
    ObjectBody open(String fileId) {
        if (ram != null) {
            ByteBuf inRam = ram.retain(fileId);
            if (inRam != null) {
                return ObjectBody.inRam(inRam);
            }
        }
        if (writer != null) {
            ByteBuf pending = writer.pendingBody(fileId);
            if (pending != null) {
                return ObjectBody.inRam(pending);
            }
        }
        Path file = directory.objectFile(fileId);
        return Files.exists(file) ? ObjectBody.onDisk(file) : null;
    }

    /** Whether the body is in its file and nowhere only in RAM (no dirty RAM copy, no pending write). */
    boolean onDisk(String fileId) {
        return (ram == null || !ram.isDirty(fileId)) && (writer == null || !writer.isPending(fileId))
                && Files.isRegularFile(directory.objectFile(fileId));
    }

    /** The object was deleted or replaced: its body leaves RAM and any pending write is dropped. */
    void forget(String fileId) {
        if (ram != null) {
            ram.remove(fileId);
        }
        if (writer != null) {
            writer.cancel(fileId);
        }
    }

    RamTier ram() {
        return ram;
    }

    DiskWriter writer() {
        return writer;
    }

    /**
     * Graceful stop: bodies only in RAM go to the writer (not on a RAM-only node), the writer drains, RAM is freed.
     *
     * @return whether every body that should reach disk did, within the drain timeout
     */
    boolean stop(Duration drainTimeout) {
        boolean clean = true;
        if (writer != null) {
            List<DiskWriter.Job> jobs = new ArrayList<>();
            ram.forEachDirty(entry -> {
                DiskWriter.Job job = writer.register(entry.bucket, entry.key, entry.fileId, entry.body);
                if (job != null) {
                    jobs.add(job);
                }
            });
            jobs.forEach(writer::submit);
            clean = writer.stop(drainTimeout);
        }
        if (ram != null) {
            ram.close();
        }
        return clean;
    }
}
