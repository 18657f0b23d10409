package io.promptcache.index.lookup;

import java.util.LinkedHashMap;
import java.util.Map;

import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Which listed keys get a PrefixMap entry in a replica (docs/architecture.md, "Anchor keys"): block {@code j} of an
 * object whose written blocks are {@code first..last} is an anchor if {@code j} is a multiple of {@link #EVERY}, or
 * the first or the last block it wrote. A lookup binary-searches the multiples of {@link #EVERY}, then scans the
 * window above the longest one ({@link LongestPrefixSearch}). A constant of the build: a PrefixMap derived with
 * another rule would not answer the binary search.
 */
public final class KeyAnchors {

    /** Every this many blocks a key has an entry. */
    public static final int EVERY = 8;

    private KeyAnchors() {
    }

    /** Whether block {@code blocks} of an object that wrote blocks {@code first..last} is an anchor. */
    public static boolean anchor(int blocks, int first, int last) {
        return blocks % EVERY == 0 || blocks == first || blocks == last;
    }

    /** The anchors among one object's entries (its written keys in block order, as {@code WrittenKeys} gives them). */
    public static Map<PrefixKey, PrefixEntry> of(Map<PrefixKey, PrefixEntry> entries) {
        if (entries.isEmpty()) {
            return entries;
        }
        int first = Integer.MAX_VALUE;
        int last = 0;
        for (PrefixEntry entry : entries.values()) {
            first = Math.min(first, entry.getBlocks());
            last = Math.max(last, entry.getBlocks());
        }
        Map<PrefixKey, PrefixEntry> anchors = new LinkedHashMap<>();
        for (Map.Entry<PrefixKey, PrefixEntry> e : entries.entrySet()) {
            if (anchor(e.getValue().getBlocks(), first, last)) {
                anchors.put(e.getKey(), e.getValue());
            }
        }
        return anchors;
    }
}
