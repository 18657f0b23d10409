package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.List;

/** ListObjectsV2 over the metadata store: prefix, delimiter roll-up, start-after, max-keys. */
final class ObjectLister {

    private final MetadataStore metadata;

    ObjectLister(MetadataStore metadata) {
        this.metadata = metadata;
    }

    ListPage list(String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        if (maxKeys <= 0) {
            // S3 answers max-keys=0 with an empty, untruncated page
            return new ListPage(List.of(), List.of(), false, null);
        }
        String p = prefix == null ? "" : prefix;
        String d = delimiter == null || delimiter.isEmpty() ? null : delimiter;
        List<ListPage.Entry> objects = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String[] last = {null};
        boolean[] truncated = {false};
        // start at the later of the prefix itself and start-after
        boolean fromPrefix = startAfter == null || startAfter.compareTo(p) < 0;
        metadata.scan(bucket, fromPrefix ? p : startAfter, !fromPrefix, (key, value) -> {
            if (!key.startsWith(p)) {
                return key.compareTo(p) < 0;
            }
            String rolledUp = rollUp(key, p, d);
            if (rolledUp != null && !prefixes.isEmpty() && prefixes.get(prefixes.size() - 1).equals(rolledUp)) {
                return true;
            }
            if (objects.size() + prefixes.size() >= maxKeys) {
                truncated[0] = true;
                return false;
            }
            if (rolledUp != null) {
                prefixes.add(rolledUp);
                last[0] = rolledUp;
            } else {
                objects.add(new ListPage.Entry(key, ObjectMeta.decode(value)));
                last[0] = key;
            }
            return true;
        });
        return new ListPage(objects, prefixes, truncated[0], truncated[0] ? nextStart(last[0], d) : null);
    }

    /** The common prefix {@code key} rolls up to, or null. */
    private static String rollUp(String key, String prefix, String delimiter) {
        if (delimiter == null) {
            return null;
        }
        int at = key.indexOf(delimiter, prefix.length());
        return at < 0 ? null : key.substring(0, at + delimiter.length());
    }

    /** Sorts after every key that starts with a rolled-up prefix (U+10FFFF: the largest UTF-8 sequence). */
    private static final String AFTER_ALL = new String(Character.toChars(Character.MAX_CODE_POINT));

    /** After a common prefix, the next page skips every key under it. */
    private static String nextStart(String last, String delimiter) {
        return delimiter != null && last.endsWith(delimiter) ? last + AFTER_ALL : last;
    }
}
