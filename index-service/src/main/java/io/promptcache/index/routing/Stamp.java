package io.promptcache.index.routing;

/**
 * The 64-bit stamp of one tracked block of one backend: {@code [0][epoch: 42][confirmed: 1][depth, inverted: 20]}.
 * Sorting stamps ascending gives the eviction order: least recently used epoch first; within one epoch
 * predictions before blocks the engine confirmed, and deeper blocks before their prefix (so a chain is cut from its
 * end, keeping the contiguity the binary search relies on).
 */
final class Stamp {

    static final int MAX_DEPTH = (1 << 20) - 1;
    private static final long EPOCH_MASK = (1L << 42) - 1;

    private Stamp() {
    }

    static long of(long epoch, boolean confirmed, int depth) {
        return ((epoch & EPOCH_MASK) << 21) | (confirmed ? 1L << 20 : 0) | (MAX_DEPTH - Math.min(depth, MAX_DEPTH));
    }

    static long epoch(long stamp) {
        return stamp >>> 21;
    }

    static boolean confirmed(long stamp) {
        return (stamp & (1L << 20)) != 0;
    }

    static int depth(long stamp) {
        return MAX_DEPTH - (int) (stamp & MAX_DEPTH);
    }
}
