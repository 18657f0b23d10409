package io.promptcache.index.lookup;

import java.util.ArrayList;
import java.util.List;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.access.AccessSampler;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.index.storage.NodeStorage;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Lookup: the longest usable prefix from this replica's stores (no storage node, no network), then where to GET it.
 */
@ApplicationScoped
public class LookupService {

    private final PrefixIndex stores;
    private final PrefixMatcher matcher;
    private final NodeStorage storage;
    private final NodeDirectory nodes;
    private final AccessSampler access;
    private final IndexMetrics metrics;

    LookupService(PrefixIndex stores, PrefixMatcher matcher, NodeStorage storage, NodeDirectory nodes,
            AccessSampler access,
            IndexMetrics metrics) {
        this.stores = stores;
        this.matcher = matcher;
        this.storage = storage;
        this.nodes = nodes;
        this.access = access;
        this.metrics = metrics;
    }

    public LookupResult lookup(Namespace spec, PrefixChain chain) {
        stores.requireReady();
        PrefixMatch match = matcher.longest(chain);
        LookupResult response = match.hit() ? answer(spec, match) : LookupResult.miss(match.probes());
        metrics.lookup(spec.idText(), response.hit(), match.probes());
        if (response.hit() && wholeObject(match)) {
            access.hit(response.objectId());
        }
        return response;
    }

    /**
     * Whether the hit uses all of its object, and so counts as a use of it for eviction (the GC's LRU, and the node's
     * order of candidates, which sees the same rule as a range GET of the whole object). A hit on a prefix does not:
     * the engine computes the rest and stores a continuation, which holds the bytes it used and is the fresh one; the
     * rest of the hit object keeps its age, so it goes first and the node trims what no one reads.
     */
    private static boolean wholeObject(PrefixMatch match) {
        return match.blocks() >= match.object().getBlocks();
    }

    /** The hit's location; a miss if its object or node is gone meanwhile (the next lookup may find another). */
    private LookupResult answer(Namespace spec, PrefixMatch match) {
        PrefixEntry entry = match.entry();
        ObjectRecord object = match.object();
        if (object.getNodesCount() == 0) {
            return LookupResult.miss(match.probes());
        }
        NodeStatus node = nodes.servingCopy(object);
        if (node == null) {
            return LookupResult.miss(match.probes());
        }
        long usable = entry.getUsableBytes();
        return new LookupResult(true, entry.getObjectId(), match.blocks(), match.blocks() * spec.blockSize(),
                usable, storage.getUrl(node, object.getBucket(), object.getKey()), node.getNodeId(),
                match.probes(), alternates(object, node));
    }

    /** The object's other live copies, after {@code first} in the record's order (none without replicas). */
    private List<LookupResult.Alternate> alternates(ObjectRecord object, NodeStatus first) {
        if (object.getNodesCount() < 2) {
            return List.of();
        }
        List<LookupResult.Alternate> others = new ArrayList<>(object.getNodesCount() - 1);
        for (String nodeId : object.getNodesList()) {
            NodeStatus other = nodeId.equals(first.getNodeId()) ? null : nodes.serving(object, nodeId);
            if (other != null) {
                others.add(new LookupResult.Alternate(storage.getUrl(other, object.getBucket(), object.getKey()),
                        nodeId));
            }
        }
        return others;
    }
}
