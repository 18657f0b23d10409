package io.promptcache.schema.hash;

import java.util.function.IntPredicate;

/**
 * The longest usable prefix of a chain of {@code n} blocks by binary search, O(log n) probes: the rule the index's
 * lookup, its routing tracker and {@code simulate} share (seed 001 §7.3). It assumes usable prefixes are contiguous
 * from the start: if the prefix of {@code k} blocks is usable, so is every shorter one. Where that does not hold the
 * answer is a usable prefix, not necessarily the longest.
 */
public final class LongestPrefix {

    private LongestPrefix() {
    }

    /**
     * The largest {@code k} in {@code 0..n} with {@code usable.test(k)} (0 when none is; {@code usable} is never asked
     * about 0). The last probe that answered true is the one for the returned {@code k}, so a probe may keep what it
     * found.
     */
    public static int search(int n, IntPredicate usable) {
        if (n < 0) {
            throw new IllegalArgumentException("a chain of " + n + " blocks");
        }
        int lo = 0;
        int hi = n;
        while (lo < hi) {
            int mid = lo + (hi - lo + 1) / 2;
            if (usable.test(mid)) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
