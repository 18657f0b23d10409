package io.promptcache.index.lookup;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.access.AccessSampler;
import io.promptcache.index.api.LookupResponse;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.store.Placement;
import io.promptcache.index.store.StorageClients;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.hash.PrefixChain;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;

/**
 * Lookup: the longest usable prefix from this replica's stores (no storage node, no network), then where to GET it.
 */
@ApplicationScoped
public class LookupService {

    private final ReplicaStores stores;
    private final LongestPrefixSearch search;
    private final StorageClients storage;
    private final AccessSampler access;
    private final IndexMetrics metrics;
    private final int livenessIntervals;

    LookupService(ReplicaStores stores, CollisionReport collisions, StorageClients storage, AccessSampler access,
            IndexMetrics metrics, IndexConfig config) {
        this.stores = stores;
        this.search = new LongestPrefixSearch(collisions);
        this.storage = storage;
        this.access = access;
        this.metrics = metrics;
        this.livenessIntervals = config.storage().livenessIntervals();
    }

    /** The longest live prefix of {@code chain} (a prefix with at least one block, or a miss). */
    public PrefixMatch longest(PrefixChain chain) {
        return search.search(chain, stores);
    }

    public LookupResponse lookup(Namespace spec, PrefixChain chain) {
        stores.requireReady();
        PrefixMatch match = longest(chain);
        LookupResponse response = match.hit() ? answer(spec, match) : LookupResponse.miss(match.probes());
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
    private LookupResponse answer(Namespace spec, PrefixMatch match) {
        PrefixEntry entry = match.entry();
        ObjectRecord object = match.object();
        if (object.getNodesCount() == 0) {
            return LookupResponse.miss(match.probes());
        }
        NodeStatus node = stores.node(object.getNodes(0));
        if (node == null || !Placement.isLive(node, System.currentTimeMillis(), livenessIntervals)) {
            return LookupResponse.miss(match.probes());
        }
        long usable = entry.getUsableBytes();
        return new LookupResponse(true, entry.getObjectId(), match.blocks(), match.blocks() * spec.blockSize(),
                usable, storage.getUrl(node.getEndpoint(), object.getBucket(), object.getKey()),
                "bytes=0-" + (usable - 1), node.getNodeId(), match.probes());
    }
}
