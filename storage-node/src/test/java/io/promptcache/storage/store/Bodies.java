package io.promptcache.storage.store;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;

/** Reads whole bodies the way a GET does (segment by segment), for tests of the store. */
final class Bodies {

    private Bodies() {
    }

    static byte[] read(ObjectStore store, String bucket, String key) throws IOException {
        ObjectMeta meta = store.head(bucket, key);
        return read(store, bucket, key, 0, meta.size());
    }

    /** Bytes {@code [offset, offset + length)} of the body, as a range GET reads them. */
    static byte[] read(ObjectStore store, String bucket, String key, long offset, long length) throws IOException {
        ObjectMeta meta = store.head(bucket, key);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (BodySegment segment : store.openRange(bucket, key, meta, offset, length)) {
            byte[] bytes = new byte[(int) segment.length()];
            if (segment.body().ram() != null) {
                segment.body().ram().getBytes(segment.body().ram().readerIndex() + (int) segment.offset(), bytes);
                segment.release();
            } else {
                try (RandomAccessFile file = new RandomAccessFile(segment.body().file().toFile(), "r")) {
                    file.seek(segment.offset());
                    file.readFully(bytes);
                }
            }
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }
}
