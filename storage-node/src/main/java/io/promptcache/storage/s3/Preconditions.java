package io.promptcache.storage.s3;

import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectMeta;
import io.promptcache.storage.store.WriteCondition;
import io.vertx.core.MultiMap;

/**
 * Conditional GET/HEAD (RFC 9110 section 13.2.2 order, as S3 applies it): If-Match, else If-Unmodified-Since
 * (412 when false); then If-None-Match, else If-Modified-Since (304 when false). Dates compare at second precision,
 * like Last-Modified; an unparseable date is ignored. The same rules check a copy's source.
 */
final class Preconditions {

    /** What the request may do after the checks. */
    enum Outcome {
        PROCEED,
        NOT_MODIFIED
    }

    private Preconditions() {
    }

    static Outcome evaluate(MultiMap headers, ObjectMeta meta) {
        return evaluate(headers, meta, "");
    }

    /**
     * The {@code x-amz-copy-source-if-*} conditions of CopyObject and UploadPartCopy on the source: the same rules,
     * except that a copy S3 would answer 304 for is refused with {@code 412 PreconditionFailed}.
     */
    static void checkCopySource(MultiMap headers, ObjectMeta source) {
        if (evaluate(headers, source, COPY_SOURCE) == Outcome.NOT_MODIFIED) {
            throw failed(COPY_SOURCE + (headers.contains(COPY_SOURCE + "If-None-Match")
                    ? "If-None-Match"
                    : "If-Modified-Since"));
        }
    }

    private static final String COPY_SOURCE = "x-amz-copy-source-";

    /**
     * The preconditions of a write ({@code If-Match}, {@code If-None-Match}); only {@code *} is defined for
     * If-None-Match on a write (S3: anything else is {@code 501 NotImplemented}).
     */
    static WriteCondition writeCondition(MultiMap headers) {
        String ifNoneMatch = headers.get("If-None-Match");
        if (ifNoneMatch != null && !ifNoneMatch.trim().equals("*")) {
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "If-None-Match on a write only accepts * (write only"
                    + " if no object has the key), not " + ifNoneMatch.trim() + "; nothing was written.");
        }
        String ifMatch = headers.get("If-Match");
        return ifMatch == null && ifNoneMatch == null
                ? WriteCondition.NONE
                : new WriteCondition(ifMatch == null ? null : ifMatch.trim(), ifNoneMatch != null);
    }

    private static Outcome evaluate(MultiMap headers, ObjectMeta meta, String prefix) {
        long modifiedSeconds = meta.lastModified() / 1000;
        String ifMatch = headers.get(prefix + "If-Match");
        if (ifMatch != null) {
            if (!WriteCondition.matches(ifMatch, meta.etag())) {
                throw failed(prefix + "If-Match");
            }
        } else {
            Long unmodifiedSince = seconds(headers.get(prefix + "If-Unmodified-Since"));
            if (unmodifiedSince != null && modifiedSeconds > unmodifiedSince) {
                throw failed(prefix + "If-Unmodified-Since");
            }
        }
        String ifNoneMatch = headers.get(prefix + "If-None-Match");
        if (ifNoneMatch != null) {
            return WriteCondition.matches(ifNoneMatch, meta.etag()) ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
        }
        Long modifiedSince = seconds(headers.get(prefix + "If-Modified-Since"));
        return modifiedSince != null && modifiedSeconds <= modifiedSince ? Outcome.NOT_MODIFIED : Outcome.PROCEED;
    }

    private static Long seconds(String httpDate) {
        if (httpDate == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(httpDate.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static S3Exception failed(String header) {
        return new S3Exception(S3ErrorCode.PRECONDITION_FAILED,
                "At least one of the pre-conditions you specified did not hold: " + header);
    }
}
