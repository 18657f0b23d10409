package io.promptcache.storage.s3;

/**
 * Bucket and key of a request: path style, {@code /}, {@code /bucket}, {@code /bucket/key...}; or virtual-hosted
 * style, the bucket from the {@code Host} ({@link VirtualHosts}) and the key the whole path. The key is the
 * percent-decoded rest of the raw path, slashes and dots kept as they are.
 *
 * @param bucket null for the service root
 * @param key null for bucket-level requests
 */
record S3Path(String bucket, String key) {

    /** A virtual-hosted request's: {@code hostBucket} from the Host, the key the whole path; path style if null. */
    static S3Path of(String rawPath, String hostBucket) {
        if (hostBucket == null) {
            return of(rawPath);
        }
        String key = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
        return new S3Path(hostBucket, key.isEmpty() ? null : PercentDecoder.decode(key));
    }

    static S3Path of(String rawPath) {
        String path = rawPath.startsWith("/") ? rawPath.substring(1) : rawPath;
        if (path.isEmpty()) {
            return new S3Path(null, null);
        }
        int slash = path.indexOf('/');
        if (slash < 0) {
            return new S3Path(PercentDecoder.decode(path), null);
        }
        String key = path.substring(slash + 1);
        return new S3Path(PercentDecoder.decode(path.substring(0, slash)),
                key.isEmpty() ? null : PercentDecoder.decode(key));
    }

    /** The resource named in error documents. */
    String resource() {
        return bucket == null ? "/" : key == null ? "/" + bucket : "/" + bucket + "/" + key;
    }
}
