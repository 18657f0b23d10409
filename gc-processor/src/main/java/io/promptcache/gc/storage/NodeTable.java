package io.promptcache.gc.storage;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.proto.NodeStatus;

/**
 * The latest heartbeat of every storage node: the global store {@value #STORE}, a copy of {@code nodes}; and the
 * external S3 endpoints of the configuration, which send none: each as event-schema's
 * {@link ExternalNodes#asOf} holds it (UP, as fresh as the newest heartbeat: never lost, never hiding a stall). A
 * configured endpoint's id shadows a heartbeating node of the same id.
 */
public final class NodeTable {

    public static final String STORE = "gc-nodes";
    /** How long the newest heartbeat is reused for the external endpoints' freshness. */
    private static final long NEWEST_REUSE_MS = 500;

    private final KeyValueStore<NodeId, NodeStatus> store;
    private final Map<String, NodeStatus> externals;
    private long newestAtMs = Long.MIN_VALUE;
    private Map<String, NodeStatus> heldExternals = Map.of();

    private NodeTable(KeyValueStore<NodeId, NodeStatus> store, Map<String, NodeStatus> externals) {
        this.store = store;
        this.externals = Map.copyOf(externals);
    }

    /**
     * The table as seen from a processor of the topology.
     *
     * @param externals the configured external endpoints by node id (event-schema {@code ExternalNodes.statuses})
     */
    public static NodeTable of(ProcessorContext<?, ?> context, Map<String, NodeStatus> externals) {
        return new NodeTable(context.getStateStore(STORE), externals);
    }

    /** The node's latest heartbeat, or null if it never sent one (or left for good). */
    public NodeStatus get(String nodeId) {
        if (externals.containsKey(nodeId)) {
            return externals(System.currentTimeMillis()).get(nodeId);
        }
        return store.get(new NodeId(nodeId));
    }

    /** Every node's latest heartbeat by node id. */
    public Map<String, NodeStatus> all() {
        Map<String, NodeStatus> all = heartbeats();
        if (!externals.isEmpty()) {
            all.putAll(held(all, System.currentTimeMillis()));
        }
        return all;
    }

    private Map<String, NodeStatus> heartbeats() {
        Map<String, NodeStatus> all = new HashMap<>();
        try (KeyValueIterator<NodeId, NodeStatus> it = store.all()) {
            it.forEachRemaining(kv -> all.put(kv.key.value(), kv.value));
        }
        return all;
    }

    private Map<String, NodeStatus> externals(long now) {
        if (now - newestAtMs > NEWEST_REUSE_MS || now < newestAtMs) {
            held(heartbeats(), now);
        }
        return heldExternals;
    }

    private Map<String, NodeStatus> held(Map<String, NodeStatus> heartbeats, long now) {
        heartbeats.keySet().removeAll(externals.keySet());
        Map<String, NodeStatus> held = new HashMap<>();
        externals.forEach((id, external) -> held.put(id, ExternalNodes.asOf(external, heartbeats.values(), now)));
        heldExternals = held;
        newestAtMs = now;
        return held;
    }
}
