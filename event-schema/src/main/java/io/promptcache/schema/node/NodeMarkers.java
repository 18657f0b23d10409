package io.promptcache.schema.node;

/**
 * What promptcache's services and a storage node tell each other beside S3 itself: the user metadata (S3
 * {@code x-amz-meta-*}, named here without the prefix) that promptcache puts on KV objects for their node, and the
 * words of the node's answers that clients read.
 */
public final class NodeMarkers {

    /**
     * {@code true} on a pinned object: a storage node making room for a write never deletes it on its own (the GC
     * never evicts pinned objects either). index-service sets it on one-shot and continuation stores of pinned objects.
     */
    public static final String PINNED = "promptcache-pinned";

    /**
     * Words in a storage node's {@code NoSuchKey} message for an object it deleted for room lately (an eviction
     * candidate of the GC, or its own least recently used): lookups may return it until the GC reads the node's next
     * heartbeat, so a client counts such a 404 apart from an object lost.
     */
    public static final String RECLAIMED = "deleted for room";

    private NodeMarkers() {
    }
}
