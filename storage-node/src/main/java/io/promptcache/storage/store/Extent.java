package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.List;

/**
 * A run of bytes of one body file: an object's body is a list of extents, read in order. Body files are immutable
 * and reference-counted ({@link ExtentRefs}), so objects made by CopyObject or UploadPartCopy share the source's
 * bytes instead of copying them.
 *
 * @param fileId the body file under {@code objects/}
 * @param offset first byte of the run in the file
 * @param length bytes in the run
 */
public record Extent(String fileId, long offset, long length) {

    public Extent {
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("negative extent " + offset + "+" + length);
        }
    }

    /** The end of the run in its file (exclusive). */
    long end() {
        return offset + length;
    }

    /** The extents covering bytes {@code [from, from + count)} of a body made of {@code body}, in order. */
    static List<Extent> slice(List<Extent> body, long from, long count) {
        List<Extent> out = new ArrayList<>();
        long position = 0;
        long to = from + count;
        for (Extent e : body) {
            long start = Math.max(from, position);
            long end = Math.min(to, position + e.length());
            if (start < end) {
                out.add(new Extent(e.fileId(), e.offset() + start - position, end - start));
            }
            position += e.length();
            if (position >= to) {
                break;
            }
        }
        return out;
    }
}
