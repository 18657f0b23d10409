package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import io.promptcache.storage.store.MultipartUploads.Listed;
import io.promptcache.storage.store.MultipartUploads.UploadPage;

/** One page of ListMultipartUploads over the uploads in progress of a bucket (S3's markers and roll-up). */
final class UploadListing {

    private UploadListing() {
    }

    /**
     * The uploads of {@code uploads} (those of one bucket under {@code prefix}), by key then initiation (the order of
     * their ids), after the markers ({@code keyMarker} alone: keys after it; with {@code uploadIdMarker}: also the
     * later uploads of that key), with the keys rolled up at {@code delimiter}; at most {@code max} entries.
     */
    static UploadPage page(List<Listed> uploads, String prefix, String delimiter, String keyMarker,
            String uploadIdMarker, int max) {
        List<Listed> all = new ArrayList<>(uploads);
        all.sort(Comparator.comparing((Listed l) -> l.upload().key()).thenComparing(Listed::uploadId));
        int from = keyMarker == null ? 0 : start(all, prefix, delimiter, keyMarker, uploadIdMarker);
        List<Listed> listed = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        String lastKey = null;
        String lastId = null;
        for (int i = from; i < all.size(); i++) {
            Listed upload = all.get(i);
            String rolledUp = ListPage.rollUp(upload.upload().key(), prefix, delimiter);
            if (rolledUp != null && !prefixes.isEmpty() && prefixes.get(prefixes.size() - 1).equals(rolledUp)) {
                continue;
            }
            if (listed.size() + prefixes.size() >= max) {
                return new UploadPage(listed, prefixes, true, lastKey, lastId);
            }
            if (rolledUp != null) {
                prefixes.add(rolledUp);
                lastKey = rolledUp;
                lastId = null;
            } else {
                listed.add(upload);
                lastKey = upload.upload().key();
                lastId = upload.uploadId();
            }
        }
        return new UploadPage(listed, prefixes, false, null, null);
    }

    /**
     * The index of the first upload after the markers in {@code all} (sorted): with an upload-id marker, the first
     * upload of {@code keyMarker} with a greater id (as S3 defines it), else the first upload after that key and
     * after the common prefix it rolls up to.
     */
    private static int start(List<Listed> all, String prefix, String delimiter, String keyMarker,
            String uploadIdMarker) {
        String resume = uploadIdMarker == null ? ListPage.resumeAfter(keyMarker, prefix, delimiter) : keyMarker;
        int from = 0;
        while (from < all.size() && (all.get(from).upload().key().compareTo(resume) < 0
                || all.get(from).upload().key().equals(resume)
                        && (uploadIdMarker == null || all.get(from).uploadId().compareTo(uploadIdMarker) <= 0))) {
            from++;
        }
        return from;
    }
}
