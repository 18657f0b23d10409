package io.promptcache.index.store;

/**
 * Step one of a two-step store: PUT exactly {@code bytes} bytes to {@code uploadUrl}, then commit. When a live
 * object already covers the prefix, {@code deduplicated} is true, {@code objectId} names it and there is nothing to
 * upload.
 *
 * @param objectId the id the object will have (or has)
 * @param deduplicated nothing to upload
 * @param node storage node to PUT to
 * @param uploadUrl PUT URL on the node (presigned when the nodes use SigV4); null when deduplicated
 * @param bytes bytes to PUT (or the existing object's size when deduplicated)
 * @param expiresAtMs when a presigned URL stops working; null for a plain URL
 * @param fromBlock for a continuation: the first block whose bytes are PUT; else null
 * @param continues for a continuation: the object whose prefix the new object shares; else null
 * @param uploadId for a continuation: the node's multipart upload the URL puts into; else null
 */
public record Reservation(String objectId, boolean deduplicated, String node, String uploadUrl, long bytes,
        Long expiresAtMs, Integer fromBlock, String continues, String uploadId) {
}
