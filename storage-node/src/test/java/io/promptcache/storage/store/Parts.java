package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Uploads parts, and finds their files, for tests of multipart uploads. */
final class Parts {

    private Parts() {
    }

    /** Stores part {@code number} of {@code size} zero bytes in the upload and returns its record. */
    static ObjectMeta upload(MultipartUploads multipart, String bucket, String key, String uploadId, int number,
            int size) throws IOException {
        return upload(multipart, bucket, key, uploadId, number, new byte[size]);
    }

    /** Stores {@code bytes} as part {@code number} of the upload and returns its record. */
    static ObjectMeta upload(MultipartUploads multipart, String bucket, String key, String uploadId, int number,
            byte[] bytes) throws IOException {
        try (ObjectUpload part = multipart.beginPart(bucket, key, uploadId, number, bytes.length)) {
            part.write(bytes, 0, bytes.length);
            return part.commit(null);
        }
    }

    /** The file of an uploaded part in the data directory {@code data}. */
    static Path file(Path data, String uploadId, String fileId) {
        return new DataDirectory(data).uploadPartFile(uploadId, fileId);
    }

    /** The part files of {@code uploadId} under {@code data}'s uploads/. */
    static List<Path> files(Path data, String uploadId) throws IOException {
        try (Stream<Path> files = Files.list(data.resolve("uploads"))) {
            return files.filter(f -> f.getFileName().toString().startsWith(uploadId)).toList();
        }
    }
}
