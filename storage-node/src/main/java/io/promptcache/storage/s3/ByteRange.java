package io.promptcache.storage.s3;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * One satisfiable byte range of an object: {@code [first, last]} inclusive.
 *
 * @param first first byte
 * @param last last byte
 */
public record ByteRange(long first, long last) {

    public long length() {
        return last - first + 1;
    }

    /** The {@code Content-Range} value for an object of {@code size} bytes. */
    public String contentRange(long size) {
        return "bytes " + first + "-" + last + "/" + size;
    }

    /**
     * Parses a {@code Range} header for an object of {@code size} bytes: {@code bytes=a-b}, {@code bytes=a-},
     * {@code bytes=-n}. Returns null when the header is absent or malformed (the whole object is served, as S3
     * does); refuses several ranges ({@code InvalidArgument}) and unsatisfiable ones ({@code InvalidRange}, 416).
     */
    public static ByteRange parse(String header, long size) {
        if (header == null) {
            return null;
        }
        String h = header.trim();
        if (!h.regionMatches(true, 0, "bytes=", 0, 6)) {
            return null;
        }
        String spec = h.substring(6).trim();
        if (spec.contains(",")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "Only one byte range per request is supported, got: " + header);
        }
        int dash = spec.indexOf('-');
        if (dash < 0) {
            return null;
        }
        String a = spec.substring(0, dash).trim();
        String b = spec.substring(dash + 1).trim();
        try {
            if (a.isEmpty()) {
                long suffix = Long.parseLong(b);
                if (suffix <= 0 || size == 0) {
                    throw unsatisfiable(header, size);
                }
                return new ByteRange(Math.max(0, size - suffix), size - 1);
            }
            long first = Long.parseLong(a);
            long last = b.isEmpty() ? Long.MAX_VALUE : Long.parseLong(b);
            if (first < 0 || last < first) {
                return null;
            }
            if (first >= size) {
                throw unsatisfiable(header, size);
            }
            return new ByteRange(first, Math.min(last, size - 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static S3Exception unsatisfiable(String header, long size) {
        return new UnsatisfiableRangeException(header, size);
    }

    /** 416 InvalidRange; the response states the object size in {@code Content-Range: bytes *}{@code /size}. */
    public static final class UnsatisfiableRangeException extends S3Exception {

        private static final long serialVersionUID = 1L;

        private final long size;

        UnsatisfiableRangeException(String header, long size) {
            super(S3ErrorCode.INVALID_RANGE,
                    "The requested range " + header + " is not satisfiable for an object of " + size + " bytes.");
            this.size = size;
        }

        public long size() {
            return size;
        }
    }
}
