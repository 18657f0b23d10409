package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.List;

/** Bucket listing over the metadata store: prefix, delimiter roll-up, start-after, max-keys. */
final class ObjectLister {

    private final MetadataStore metadata;

    ObjectLister(MetadataStore metadata) {
        this.metadata = metadata;
    }

    ListPage list(String bucket, String prefix, String delimiter, String startAfter, int maxKeys) {
        if (maxKeys <= 0) {
            // S3 answers max-keys=0 with an empty, untruncated page
            return ListPage.EMPTY;
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
            String rolledUp = ListPage.rollUp(key, p, d);
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
        return truncated[0]
                ? new ListPage(objects, prefixes, true, last[0], ListPage.resumeAfter(last[0], p, d))
                : new ListPage(objects, prefixes, false, null, null);
    }
}
