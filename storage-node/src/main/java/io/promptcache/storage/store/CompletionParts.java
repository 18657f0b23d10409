package io.promptcache.storage.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/**
 * The parts a CompleteMultipartUpload names, checked as S3 checks them against the parts stored: at least one, in
 * ascending order, each uploaded with the ETag named (and the checksums named, if any: {@code InvalidPart}), every
 * part but the last at least {@link MultipartUploads#MIN_PART_BYTES} unless it shares a copy's bytes.
 */
final class CompletionParts {

    private CompletionParts() {
    }

    /** The stored parts {@code refs} name, in their order; {@code S3Exception} for the first rule broken. */
    static List<ObjectMeta> choose(List<MultipartUploads.PartRef> refs, Map<Integer, ObjectMeta> stored) {
        if (refs.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "CompleteMultipartUpload names no parts.");
        }
        for (int i = 1; i < refs.size(); i++) {
            if (refs.get(i).number() <= refs.get(i - 1).number()) {
                throw new S3Exception(S3ErrorCode.INVALID_PART_ORDER);
            }
        }
        List<ObjectMeta> chosen = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            MultipartUploads.PartRef ref = refs.get(i);
            ObjectMeta part = stored.get(ref.number());
            if (part == null || !part.etag().equals(unquote(ref.etag()))) {
                throw new S3Exception(S3ErrorCode.INVALID_PART,
                        "Part " + ref.number() + " was not uploaded or its ETag does not match.");
            }
            ref.checksums().forEach((algorithm, value) -> {
                if (!value.trim().equals(part.headers().get(ClientChecksums.PREFIX + algorithm))) {
                    throw new S3Exception(S3ErrorCode.INVALID_PART, "Part " + ref.number() + "'s " + algorithm
                            .toUpperCase(Locale.ROOT) + " checksum does not match the one it was uploaded "
                            + "with" + (part.headers().containsKey(ClientChecksums.PREFIX + algorithm) ? "" : " (none)")
                            + ".");
                }
            });
            if (i < refs.size() - 1 && part.size() < MultipartUploads.MIN_PART_BYTES && !part.isShared()) {
                throw new S3Exception(S3ErrorCode.ENTITY_TOO_SMALL, "Part " + ref.number() + " is " + part.size()
                        + " bytes; every part but the last must be at least " + MultipartUploads.MIN_PART_BYTES
                        + " bytes.");
            }
            chosen.add(part);
        }
        return chosen;
    }

    /**
     * The object checksum a Complete claims ({@code x-amz-checksum-<algorithm>}, by algorithm) against the composite
     * of {@code chosen}: a COMPOSITE claim ({@code <base64>-<part count>}) of an algorithm the node composes from the
     * parts' checksums must equal it, else {@code BadDigest} and nothing is completed. Not checked: a full-object
     * claim (no {@code -<count>}; the node keeps no full-object checksum of a multipart object) and an algorithm the
     * parts were not uploaded with (CRC64NVME, mixed, none).
     */
    static void checkClaimed(Map<String, String> claimed, List<ObjectMeta> chosen) {
        if (claimed.isEmpty()) {
            return;
        }
        Map<String, String> composite = ClientChecksums.composite(chosen);
        claimed.forEach((algorithm, value) -> {
            String ours = composite.get(ClientChecksums.PREFIX + algorithm);
            if (ours != null && value.trim().matches(".*-[0-9]+") && !ours.equals(value.trim())) {
                throw new S3Exception(S3ErrorCode.BAD_DIGEST, "The " + algorithm.toUpperCase(Locale.ROOT)
                        + " checksum you specified for the object (" + value.trim() + ") did not match the "
                        + "composite of its parts' (" + ours + ").");
            }
        });
    }

    private static String unquote(String etag) {
        String e = etag.trim();
        return e.length() >= 2 && e.startsWith("\"") && e.endsWith("\"") ? e.substring(1, e.length() - 1) : e;
    }
}
