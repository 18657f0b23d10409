package io.promptcache.storage.store;

import java.util.List;

/**
 * One page of a bucket listing.
 *
 * @param objects keys and metadata, in key order
 * @param commonPrefixes prefixes rolled up at the delimiter, in order
 * @param truncated whether more keys follow
 * @param nextStartAfter where the next page starts (exclusive), when truncated
 */
public record ListPage(List<Entry> objects, List<String> commonPrefixes, boolean truncated, String nextStartAfter) {

    /** One listed object. */
    public record Entry(String key, ObjectMeta meta) {
    }
}
