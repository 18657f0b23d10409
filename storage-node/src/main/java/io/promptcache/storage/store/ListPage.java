package io.promptcache.storage.store;

import java.util.List;

/**
 * One page of a bucket listing.
 *
 * @param objects keys and metadata, in key order
 * @param commonPrefixes prefixes rolled up at the delimiter, in order
 * @param truncated whether more keys follow
 * @param nextMarker the last key or common prefix listed, when truncated (ListObjects v1's NextMarker)
 * @param nextStartAfter where the next page starts (exclusive), when truncated: after every key under the last
 *        common prefix, if the page ends with one
 */
public record ListPage(List<Entry> objects, List<String> commonPrefixes, boolean truncated, String nextMarker,
        String nextStartAfter) {

    /** Sorts after every key that starts with a rolled-up prefix (U+10FFFF: the largest UTF-8 sequence). */
    private static final String AFTER_ALL = new String(Character.toChars(Character.MAX_CODE_POINT));

    /** An empty, untruncated page. */
    public static final ListPage EMPTY = new ListPage(List.of(), List.of(), false, null, null);

    /** One listed object. */
    public record Entry(String key, ObjectMeta meta) {
    }

    /** The common prefix {@code key} rolls up to under {@code prefix} and {@code delimiter}, or null. */
    static String rollUp(String key, String prefix, String delimiter) {
        if (delimiter == null || delimiter.isEmpty() || !key.startsWith(prefix)) {
            return null;
        }
        int at = key.indexOf(delimiter, prefix.length());
        return at < 0 ? null : key.substring(0, at + delimiter.length());
    }

    /**
     * Where a listing resumes after {@code marker} (a key or common prefix already listed): after it, and after every
     * key under the common prefix it rolls up to, which was listed as that prefix.
     */
    public static String resumeAfter(String marker, String prefix, String delimiter) {
        String rolledUp = rollUp(marker, prefix == null ? "" : prefix, delimiter);
        return rolledUp != null ? rolledUp + AFTER_ALL : marker;
    }
}
