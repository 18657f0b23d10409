package io.promptcache.storage.store;

import java.util.concurrent.atomic.AtomicLong;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * The physical bytes allocated on this node, against its capacity: body files once however many objects share them,
 * inline bodies, parts, and reservations of writes in progress. The one counter of them; {@link Capacity} makes room
 * when a reservation does not fit, {@link Entries} adjusts it as versions are indexed and freed.
 */
final class Allocation {

    private final long capacityBytes;
    private final AtomicLong allocatedBytes;

    Allocation(long capacityBytes, long allocatedAtStart) {
        this.capacityBytes = capacityBytes;
        this.allocatedBytes = new AtomicLong(allocatedAtStart);
    }

    long capacityBytes() {
        return capacityBytes;
    }

    /** Physical bytes allocated now (capacity is checked against it). */
    long allocated() {
        return allocatedBytes.get();
    }

    /** Adds {@code delta} (negative: frees) to the allocated bytes: a commit's final size, a deleted body. */
    void adjust(long delta) {
        allocatedBytes.addAndGet(delta);
    }

    /** Releases a reservation (or bytes no longer held). */
    void release(long bytes) {
        adjust(-bytes);
    }

    /** Reserves {@code bytes} if they fit under the capacity; false (nothing reserved) if not. */
    boolean tryReserve(long bytes) {
        long current;
        do {
            current = allocatedBytes.get();
            if (current + bytes > capacityBytes) {
                return false;
            }
        } while (!allocatedBytes.compareAndSet(current, current + bytes));
        return true;
    }

    /** The refusal of a reservation of {@code bytes} that does not fit. */
    S3Exception insufficient(long bytes) {
        long current = allocatedBytes.get();
        return new S3Exception(S3ErrorCode.INSUFFICIENT_STORAGE, "Not enough free capacity: " + bytes
                + " bytes requested, " + Math.max(0, capacityBytes - current) + " of " + capacityBytes
                + " free. Nothing was written.");
    }
}
