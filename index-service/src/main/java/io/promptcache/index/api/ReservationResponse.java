package io.promptcache.index.api;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.promptcache.index.store.Reservation;

/**
 * A reservation for the two-step store: PUT exactly {@code bytes} bytes to {@code uploadUrl}, then commit. When a
 * live object already covers the prefix, {@code deduplicated} is true, {@code objectId} names it and there is
 * nothing to upload.
 *
 * @param objectId the id the object will have (or has)
 * @param deduplicated nothing to upload
 * @param node storage node to PUT to; send it back in the commit
 * @param uploadUrl PUT URL on the node (presigned when the nodes use SigV4)
 * @param bytes bytes to PUT (Content-Length)
 * @param expiresAtMs when a presigned URL stops working
 * @param commitPath where to POST the commit
 * @param fromBlock for a continuation: upload the bytes of the blocks from this one on (the blocks before it are
 *        shared from {@code continues}); absent: upload every block
 * @param continues for a continuation: the object whose prefix the new object shares
 * @param uploadId for a continuation: the node's multipart upload the URL puts into; send it back in the commit
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ReservationResponse(String objectId, boolean deduplicated, String node, String uploadUrl, Long bytes,
        Long expiresAtMs, String commitPath, Integer fromBlock, String continues, String uploadId) {

    /** The answer to {@code reservation} in {@code namespace}: with where to commit it unless deduplicated. */
    static ReservationResponse of(String namespace, Reservation r) {
        String commitPath = r.deduplicated()
                ? null
                : "/v1/namespaces/" + namespace + "/reservations/" + r.objectId() + "/commit";
        return new ReservationResponse(r.objectId(), r.deduplicated(), r.node(), r.uploadUrl(), r.bytes(),
                r.expiresAtMs(), commitPath, r.fromBlock(), r.continues(), r.uploadId());
    }
}
