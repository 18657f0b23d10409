package io.promptcache.stack.status;

import java.util.Map;
import java.util.TreeMap;

import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.Topics;

/** The latest heartbeat of every storage node, read from the compacted {@code nodes} topic. */
final class NodeHeartbeats {

    private NodeHeartbeats() {
    }

    static Map<String, NodeStatus> read(String bootstrap, Map<String, String> settings) {
        Map<String, NodeStatus> latest = new TreeMap<>();
        TopicSnapshot.latest(bootstrap, settings, Topics.NODES).values().stream().filter(java.util.Objects::nonNull)
                .forEach(status -> latest.put(status.getNodeId(), status));
        return latest;
    }
}
