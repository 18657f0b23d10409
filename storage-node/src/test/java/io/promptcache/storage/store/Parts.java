package io.promptcache.storage.store;

import java.io.IOException;

/** Uploads parts of zeros, for tests of multipart uploads. */
final class Parts {

    private Parts() {
    }

    /** Stores part {@code number} of {@code size} zero bytes in the upload and returns its record. */
    static ObjectMeta upload(MultipartUploads multipart, String bucket, String key, String uploadId, int number,
            int size) throws IOException {
        try (ObjectUpload part = multipart.beginPart(bucket, key, uploadId, number, size)) {
            part.write(new byte[size], 0, size);
            return part.commit(null);
        }
    }
}
