package io.promptcache.storage.store;

import java.util.Optional;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * The preconditions of a conditional write (PutObject, CopyObject, CompleteMultipartUpload) on the object it would
 * replace, as S3 checks them: {@code If-None-Match: *} writes only if no object has the key, {@code If-Match} only
 * if the object's entity tag is one of those named ({@code *}: any object). Checked twice: when the request starts
 * ({@link #check}: {@code 412 PreconditionFailed}, or {@code 404 NoSuchKey} for If-Match on a missing object), and
 * again at the commit under the key's lock ({@link #checkAtCommit}): a condition that held at the start and fails
 * then was broken by a write that raced this one, which S3 answers with {@code 409 ConditionalRequestConflict}. Two
 * create-only writers of one key never both succeed.
 *
 * @param ifMatch the If-Match header (a list of entity tags or {@code *}), or null
 * @param ifNoneMatch whether {@code If-None-Match: *} was sent
 */
public record WriteCondition(String ifMatch, boolean ifNoneMatch) {

    /** An unconditional write. */
    public static final WriteCondition NONE = new WriteCondition(null, false);

    /** Whether the write has any precondition. */
    public boolean isConditional() {
        return ifMatch != null || ifNoneMatch;
    }

    /** Checks the preconditions against the object under {@code key} now. */
    public void check(Optional<ObjectMeta> current, String key) {
        String failed = failure(current);
        if (failed == null) {
            return;
        }
        if (current.isEmpty()) {
            throw new S3Exception(S3ErrorCode.NO_SUCH_KEY, "The specified key does not exist: " + key
                    + " (If-Match needs an object to match)");
        }
        throw new S3Exception(S3ErrorCode.PRECONDITION_FAILED,
                "At least one of the pre-conditions you specified did not hold: " + failed);
    }

    /** Checks again at the commit: a failure now means another write of the key raced this one. */
    void checkAtCommit(Optional<ObjectMeta> current, String key) {
        String failed = failure(current);
        if (failed != null) {
            throw new S3Exception(S3ErrorCode.CONDITIONAL_REQUEST_CONFLICT, "Another write of " + key
                    + " completed while this one was in progress, so " + failed + " no longer holds. Check the "
                    + "object and retry if it still should be written.");
        }
    }

    /** The header whose condition fails, or null if all hold. */
    private String failure(Optional<ObjectMeta> current) {
        if (ifNoneMatch && current.isPresent()) {
            return "If-None-Match";
        }
        if (ifMatch != null && (current.isEmpty() || !matches(ifMatch, current.get().etag()))) {
            return "If-Match";
        }
        return null;
    }

    /** Whether {@code header}, a comma-separated list of (quoted or bare, possibly weak) entity tags or *, names etag. */
    public static boolean matches(String header, String etag) {
        for (String candidate : header.split(",")) {
            String tag = candidate.trim();
            if (tag.equals("*")) {
                return true;
            }
            if (tag.startsWith("W/")) {
                tag = tag.substring(2);
            }
            if (tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"")) {
                tag = tag.substring(1, tag.length() - 1);
            }
            if (tag.equals(etag)) {
                return true;
            }
        }
        return false;
    }
}
