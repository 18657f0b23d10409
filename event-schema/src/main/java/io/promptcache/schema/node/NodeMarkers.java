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
     * The end of an evicted object's grace window (ms since the epoch): the GC tombstoned it, no lookup returns it,
     * and its node deletes it at that time, or sooner when a write needs the room. The GC sets it (a CopyObject of
     * the object onto itself with {@code REPLACE}).
     */
    public static final String RECLAIMABLE_AFTER = "promptcache-reclaimable-after";

    /**
     * An eviction candidate's last use as the GC saw it (ms since the epoch): still LIVE and served, the next the GC
     * would evict; its node deletes it first, least recently used first, when a write needs room. Set as
     * {@link #RECLAIMABLE_AFTER} is.
     */
    public static final String EVICTION_CANDIDATE = "promptcache-eviction-candidate";

    /**
     * Words in a storage node's {@code NoSuchKey} message for an object it deleted for room lately (an eviction
     * candidate of the GC, or its own least recently used): lookups may return it until the GC reads the node's next
     * heartbeat, so a client counts such a 404 apart from an object lost.
     */
    public static final String RECLAIMED = "deleted for room";

    private NodeMarkers() {
    }
}
