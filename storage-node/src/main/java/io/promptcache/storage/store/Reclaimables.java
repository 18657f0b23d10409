package io.promptcache.storage.store;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.promptcache.schema.node.NodeMarkers;

/**
 * The objects the cluster's GC marked as deletable for room, in the order a write that needs room deletes them. The
 * GC marks an object by a CopyObject of it onto itself with {@code REPLACE} and one of two user metadata entries:
 * <ul>
 * <li>{@value #MARKER} = the end of its grace window (ms since the epoch): an <em>evicted</em> object (tombstoned,
 * no lookup returns it), deleted at that time anyway;</li>
 * <li>{@value #CANDIDATE} = its last use as the GC saw it (ms): an eviction <em>candidate</em>, still LIVE and
 * served, the next the GC would evict. A range GET or an UploadPartCopy of a candidate on this node counts as a use
 * too, so a candidate hit again goes to the back.</li>
 * </ul>
 * Evicted objects go first, the earliest deadline first; then candidates, the least recently used first. An object
 * leaves the set when it is deleted or replaced, so the set holds only marked objects that still exist.
 */
final class Reclaimables {

    /** User metadata key (without {@code x-amz-meta-}) that marks an evicted object: the end of its grace window. */
    static final String MARKER = NodeMarkers.RECLAIMABLE_AFTER;
    /** User metadata key that marks a LIVE eviction candidate: its last use (ms since the epoch). */
    static final String CANDIDATE = NodeMarkers.EVICTION_CANDIDATE;

    /**
     * One marked object version.
     *
     * @param evicted tombstoned by the GC (else a LIVE candidate)
     * @param order the deadline of an evicted object, the last use of a candidate
     * @param inlineBytes the bytes of its body kept in the metadata store (0: its body is in files)
     * @param reach the body files its extents name and how far it reads each ({@link ExtentRefs#reach}): what
     *        deleting it may free, with their other holders, computed without reading its metadata again
     */
    record Candidate(boolean evicted, long order, String bucket, String key, String versionId, long inlineBytes,
            Map<String, Long> reach) {

        /** The body files its extents name. */
        Set<String> files() {
            return reach.keySet();
        }
    }

    private static final Comparator<Candidate> DELETION_ORDER = Comparator.comparing((Candidate c) -> !c.evicted())
            .thenComparingLong(Candidate::order).thenComparing(Candidate::bucket).thenComparing(Candidate::key)
            .thenComparing(Candidate::versionId);

    private final ObjectOrder<Candidate> order = new ObjectOrder<>(DELETION_ORDER);

    /** {@code bucket/key} is now {@code meta}: remembered if it carries a mark, forgotten otherwise. */
    void update(String bucket, String key, ObjectMeta meta) {
        Long deadline = number(meta.userMetadata().get(MARKER));
        Long lastUse = deadline != null ? null : number(meta.userMetadata().get(CANDIDATE));
        order.update(bucket, key, previous -> deadline == null && lastUse == null
                ? null
                : new Candidate(deadline != null, deadline != null ? deadline : lastUse, bucket, key, meta.fileId(),
                        meta.isInline() ? meta.size() : 0, Map.copyOf(ExtentRefs.reach(meta.bodyExtents()))));
    }

    private static Long number(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code bucket/key} was read at {@code nowMs}: a candidate moves behind the ones used less recently. */
    void used(String bucket, String key, long nowMs) {
        if (order.isEmpty()) {
            return;
        }
        Candidate current = order.get(bucket, key);
        if (current == null || current.evicted() || current.order() >= nowMs) {
            return;
        }
        order.move(bucket, key, current, new Candidate(false, nowMs, bucket, key, current.versionId(),
                current.inlineBytes(), current.reach()));
    }

    /** {@code bucket/key} was deleted. */
    void forget(String bucket, String key) {
        order.forget(bucket, key);
    }

    /** The next object to delete after {@code previous} (null: the first); null when none is left. */
    Candidate next(Candidate previous) {
        return order.next(previous);
    }

    List<Candidate> snapshot() {
        return order.snapshot();
    }
}
