package io.promptcache.stack.topics;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

/**
 * The catalog's topics as Strimzi {@code KafkaTopic} resources ({@code kafka.strimzi.io/v1}, Strimzi 0.49 or later),
 * one YAML document each: name, partitions, replicas and every topic config of the catalog. The checked-in
 * {@code deploy/k8s/base/kafka-topics.yaml} is this output (a test fails when the two drift).
 */
public final class StrimziTopics {

    /** The API version written; Strimzi before 0.49 reads the same fields as {@code v1beta2}. */
    public static final String API_VERSION = "kafka.strimzi.io/v1";

    private StrimziTopics() {
    }

    /**
     * @param catalog topic names
     * @param cluster the Strimzi {@code Kafka} resource the topics belong to (label {@code strimzi.io/cluster})
     * @param partitions partitions per topic; 0 for each topic's default
     * @param replicas replicas per partition
     */
    public static String render(TopicCatalog catalog, String cluster, int partitions, int replicas) {
        StringBuilder yaml = new StringBuilder();
        yaml.append("# Generated from event-schema's topic catalog by `./promptcache topics --strimzi ").append(cluster)
                .append(" --replicas ").append(replicas).append(partitions > 0 ? " --partitions " + partitions : "")
                .append("`:\n# do not edit (deploy's KafkaTopicsDriftTest fails when this file and the catalog "
                        + "differ).\n");
        for (TopicSpec<?, ?> topic : Topics.ALL) {
            String name = catalog.name(topic);
            yaml.append("---\n")
                    .append("apiVersion: ").append(API_VERSION).append('\n')
                    .append("kind: KafkaTopic\n")
                    .append("metadata:\n")
                    .append("  name: ").append(resourceName(name)).append('\n')
                    .append("  labels:\n")
                    .append("    strimzi.io/cluster: ").append(cluster).append('\n')
                    .append("    app.kubernetes.io/part-of: promptcache\n")
                    .append("spec:\n")
                    .append("  topicName: ").append(name).append('\n')
                    .append("  partitions: ").append(partitions > 0 ? partitions : topic.defaultPartitions())
                    .append('\n')
                    .append("  replicas: ").append(replicas).append('\n')
                    .append("  config:\n");
            for (Map.Entry<String, String> config : new TreeMap<>(topic.configs()).entrySet()) {
                yaml.append("    ").append(config.getKey()).append(": \"").append(config.getValue()).append("\"\n");
            }
        }
        return yaml.toString();
    }

    /** A Kubernetes resource name for a topic name (lower case; '_' is not allowed there). */
    static String resourceName(String topic) {
        return topic.toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
