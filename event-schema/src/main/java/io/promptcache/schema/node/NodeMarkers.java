package io.promptcache.schema.node;

/**
 * User metadata (S3 {@code x-amz-meta-*}, named here without the prefix) that promptcache puts on KV objects for their
 * storage node, and that the node reads.
 */
public final class NodeMarkers {

    /**
     * {@code true} on a pinned object: a storage node making room for a write never deletes it on its own (the GC
     * never evicts pinned objects either). index-service sets it on one-shot and continuation stores of pinned objects.
     */
    public static final String PINNED = "promptcache-pinned";

    private NodeMarkers() {
    }
}
