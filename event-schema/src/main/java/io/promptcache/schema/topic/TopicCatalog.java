package io.promptcache.schema.topic;

import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

import org.apache.kafka.clients.admin.NewTopic;

/**
 * Full topic names under one prefix, and the {@link NewTopic} definitions to create them.
 */
public final class TopicCatalog {

    /** Configuration key (system property, MicroProfile config, env {@code PROMPTCACHE_TOPIC_PREFIX}). */
    public static final String PREFIX_CONFIG_KEY = "promptcache.topic-prefix";
    public static final String DEFAULT_PREFIX = "promptcache.";

    private static final Pattern LEGAL = Pattern.compile("[a-zA-Z0-9._-]*");

    private final String prefix;

    public TopicCatalog(String prefix) {
        if (prefix == null || !LEGAL.matcher(prefix).matches() || prefix.length() > 100) {
            throw new IllegalArgumentException("topic prefix '" + prefix
                    + "' must be at most 100 characters of letters, digits, '.', '_' and '-'");
        }
        this.prefix = prefix;
    }

    /** The catalog with the default prefix {@value #DEFAULT_PREFIX}. */
    public static TopicCatalog defaults() {
        return new TopicCatalog(DEFAULT_PREFIX);
    }

    public String prefix() {
        return prefix;
    }

    /** The full name of {@code topic}. */
    public String name(TopicSpec<?, ?> topic) {
        return prefix + topic.baseName();
    }

    /** The spec whose full name is {@code fullName}, if it is one of ours. */
    public Optional<TopicSpec<?, ?>> byName(String fullName) {
        return Topics.ALL.stream().filter(t -> name(t).equals(fullName)).findFirst();
    }

    /**
     * Definitions of every topic.
     *
     * @param partitions partitions per topic, or 0 for each topic's default
     * @param replicationFactor replication factor
     */
    public List<NewTopic> newTopics(int partitions, short replicationFactor) {
        return Topics.ALL.stream()
                .map(t -> new NewTopic(name(t), partitions > 0 ? partitions : t.defaultPartitions(),
                        replicationFactor).configs(t.configs()))
                .toList();
    }
}
