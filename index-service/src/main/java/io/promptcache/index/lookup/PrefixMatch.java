package io.promptcache.index.lookup;

import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * The outcome of a longest-prefix search.
 *
 * @param blocks complete blocks matched (0: a miss)
 * @param entry the entry of the matched prefix, null on a miss
 * @param object the LIVE record of the entry's object, as the search read it; null on a miss
 * @param probes prefix keys read
 */
public record PrefixMatch(int blocks, PrefixEntry entry, ObjectRecord object, int probes) {

    public boolean hit() {
        return blocks > 0;
    }
}
