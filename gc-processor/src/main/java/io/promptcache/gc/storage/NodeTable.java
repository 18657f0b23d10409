package io.promptcache.gc.storage;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.NodeStatus;

/** The latest heartbeat of every storage node: the global store {@value #STORE}, a copy of {@code nodes}. */
public final class NodeTable {

    public static final String STORE = "gc-nodes";

    private final KeyValueStore<NodeId, NodeStatus> store;

    private NodeTable(KeyValueStore<NodeId, NodeStatus> store) {
        this.store = store;
    }

    /** The table as seen from a processor of the topology. */
    public static NodeTable of(ProcessorContext<?, ?> context) {
        return new NodeTable(context.getStateStore(STORE));
    }

    /** The node's latest heartbeat, or null if it never sent one (or left for good). */
    public NodeStatus get(String nodeId) {
        return store.get(new NodeId(nodeId));
    }

    /** Every node's latest heartbeat by node id. */
    public Map<String, NodeStatus> all() {
        Map<String, NodeStatus> all = new HashMap<>();
        try (KeyValueIterator<NodeId, NodeStatus> it = store.all()) {
            it.forEachRemaining(kv -> all.put(kv.key.value(), kv.value));
        }
        return all;
    }
}
