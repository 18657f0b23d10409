package io.promptcache.schema.topic;

import java.util.Map;

import org.apache.kafka.common.serialization.Serde;

/**
 * One topic of the catalog: its base name (the catalog adds the prefix), serdes, and the topic-level configs it
 * needs (cleanup policy, compaction, retention).
 *
 * @param baseName name without prefix, e.g. {@code prefixes}
 * @param keySerde serde of keys
 * @param valueSerde serde of values
 * @param defaultPartitions partitions created when nothing else is configured
 * @param configs topic configs ({@code cleanup.policy} always among them)
 * @param <K> key type
 * @param <V> value type
 */
public record TopicSpec<K, V>(String baseName, Serde<K> keySerde, Serde<V> valueSerde, int defaultPartitions,
        Map<String, String> configs) {

    public TopicSpec {
        configs = Map.copyOf(configs);
    }

    /** True for compacted topics (keyed state), false for event streams with time retention. */
    public boolean compacted() {
        return "compact".equals(configs.get("cleanup.policy"));
    }
}
