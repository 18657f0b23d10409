package io.promptcache.storage.store;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Multipart uploads completed lately, so that a retried {@code CompleteMultipartUpload} (a client that lost the first
 * answer, or an SDK retrying after a timeout) answers as the first did, as S3 does, instead of {@code NoSuchUpload}.
 * Per upload id: the bucket, key and file id of the object it made. In memory, the latest {@value #KEPT}: a retry after
 * a restart of the node, or one for an object replaced or deleted since, is {@code NoSuchUpload}.
 */
final class CompletedUploads {

    static final int KEPT = 4096;

    /** What identifies the object the upload made: its file (null for a body held inline), ETag and time. */
    private record Completed(String bucket, String key, String fileId, String etag, long lastModified) {

        boolean made(ObjectMeta object) {
            return Objects.equals(fileId, object.fileId()) && etag.equals(object.etag())
                    && lastModified == object.lastModified();
        }
    }

    private final Map<String, Completed> recent = new LinkedHashMap<>(64, 0.75f, false) {

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Completed> eldest) {
            return size() > KEPT;
        }
    };

    synchronized void add(String uploadId, String bucket, String key, ObjectMeta object) {
        recent.put(uploadId, new Completed(bucket, key, object.fileId(), object.etag(), object.lastModified()));
    }

    /** The object upload {@code uploadId} made under {@code bucket}/{@code key}, if it is still there; else null. */
    ObjectMeta again(String uploadId, String bucket, String key, Entries entries) {
        Completed done;
        synchronized (this) {
            done = recent.get(uploadId);
        }
        if (done == null || !done.bucket().equals(bucket) || !done.key().equals(key)) {
            return null;
        }
        ObjectMeta now = entries.get(bucket, key).orElse(null);
        return now != null && done.made(now) ? now : null;
    }
}
