package io.promptcache.index.routing;

import java.util.Arrays;

/**
 * An open-addressing map from a 64-bit block hash to a 64-bit stamp, without boxing: about 16 bytes per block at
 * its lowest load, so a backend's million blocks cost tens of megabytes, not hundreds. Linear probing; removal
 * shifts the following run back, so there are no tombstones to sweep. Not thread-safe: its owner locks.
 */
final class LongStampMap {

    /** Stamps are never this value; {@link #get} returns it for an absent key. */
    static final long ABSENT = Long.MIN_VALUE;

    private static final long PHI = 0x9E3779B97F4A7C15L;

    private long[] keys;
    private long[] stamps;
    private boolean[] used;
    private int size;
    private int mask;

    LongStampMap() {
        allocate(16);
    }

    int size() {
        return size;
    }

    long get(long key) {
        for (int i = slot(key);; i = (i + 1) & mask) {
            if (!used[i]) {
                return ABSENT;
            }
            if (keys[i] == key) {
                return stamps[i];
            }
        }
    }

    boolean contains(long key) {
        return get(key) != ABSENT;
    }

    /** Sets the stamp of {@code key}; returns the previous one, or {@link #ABSENT}. */
    long put(long key, long stamp) {
        if (stamp == ABSENT) {
            throw new IllegalArgumentException("reserved stamp");
        }
        for (int i = slot(key);; i = (i + 1) & mask) {
            if (!used[i]) {
                used[i] = true;
                keys[i] = key;
                stamps[i] = stamp;
                if (++size > (mask + 1) * 3 / 4) {
                    rehash((mask + 1) * 2);
                }
                return ABSENT;
            }
            if (keys[i] == key) {
                long old = stamps[i];
                stamps[i] = stamp;
                return old;
            }
        }
    }

    /** Removes {@code key}; returns its stamp, or {@link #ABSENT}. */
    long remove(long key) {
        for (int i = slot(key);; i = (i + 1) & mask) {
            if (!used[i]) {
                return ABSENT;
            }
            if (keys[i] == key) {
                long old = stamps[i];
                shiftBack(i);
                size--;
                return old;
            }
        }
    }

    void clear() {
        allocate(16);
    }

    /** Calls {@code visitor} for every entry; the map must not change meanwhile. */
    void forEach(Visitor visitor) {
        for (int i = 0; i <= mask; i++) {
            if (used[i]) {
                visitor.visit(keys[i], stamps[i]);
            }
        }
    }

    @FunctionalInterface
    interface Visitor {

        void visit(long key, long stamp);
    }

    private void shiftBack(int hole) {
        int i = hole;
        while (true) {
            i = (i + 1) & mask;
            if (!used[i]) {
                break;
            }
            int home = slot(keys[i]);
            // the entry at i may move into the hole if its home is not cyclically within (hole, i]
            boolean movable = hole <= i ? (home <= hole || home > i) : (home <= hole && home > i);
            if (movable) {
                keys[hole] = keys[i];
                stamps[hole] = stamps[i];
                hole = i;
            }
        }
        used[hole] = false;
    }

    private int slot(long key) {
        return (int) ((key * PHI) >>> 32) & mask;
    }

    private void allocate(int capacity) {
        keys = new long[capacity];
        stamps = new long[capacity];
        used = new boolean[capacity];
        mask = capacity - 1;
        size = 0;
    }

    private void rehash(int capacity) {
        long[] oldKeys = keys;
        long[] oldStamps = stamps;
        boolean[] oldUsed = used;
        allocate(capacity);
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldUsed[i]) {
                put(oldKeys[i], oldStamps[i]);
            }
        }
    }

    @Override
    public String toString() {
        return "LongStampMap[size=" + size + ", capacity=" + (mask + 1) + "]";
    }

    long[] keys() {
        long[] out = new long[size];
        int n = 0;
        for (int i = 0; i <= mask; i++) {
            if (used[i]) {
                out[n++] = keys[i];
            }
        }
        return Arrays.copyOf(out, n);
    }
}
