package io.promptcache.storage.store;

import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/** The rules for bucket names and object keys. Keys never name files, so no key can escape the data dir. */
public final class Names {

    /** S3's limit on a key's UTF-8 length. */
    public static final int MAX_KEY_BYTES = 1024;

    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");

    private Names() {
    }

    /** S3 bucket naming rules: 3-63 lower-case letters, digits, '.' and '-', starting and ending alphanumeric. */
    public static String checkBucket(String bucket) {
        if (bucket == null || !BUCKET.matcher(bucket).matches() || bucket.contains("..")) {
            throw new S3Exception(S3ErrorCode.INVALID_BUCKET_NAME, "The specified bucket is not valid: '" + bucket
                    + "'. Use 3-63 lower-case letters, digits, '.' and '-', starting and ending with a letter or digit.");
        }
        return bucket;
    }

    /** Any non-empty UTF-8 string of at most 1024 bytes without NUL characters. */
    public static String checkKey(String key) {
        if (key == null || key.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "An object key must not be empty.");
        }
        if (key.indexOf('\0') >= 0) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "An object key must not contain NUL characters.");
        }
        if (key.getBytes(StandardCharsets.UTF_8).length > MAX_KEY_BYTES) {
            throw new S3Exception(S3ErrorCode.KEY_TOO_LONG,
                    "Your key is too long: at most " + MAX_KEY_BYTES + " bytes of UTF-8.");
        }
        return key;
    }
}
