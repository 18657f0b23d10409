package io.promptcache.stack.topics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;

import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.TopicSpec;
import io.promptcache.schema.topic.Topics;

/**
 * The catalog's topics on a cluster: which exist, which are missing (and created, unless only checking), and what
 * is wrong with those that exist - a topic config that differs from the catalog's (a {@code delete} topic where the
 * catalog needs {@code compact} loses state), or co-partitioned topics with different partition counts.
 */
public final class TopicAudit {

    /** What was found for one topic. */
    public record Finding(String topic, Outcome outcome, String detail) {
    }

    public enum Outcome {
        /** Exists as the catalog says. */
        OK,
        /** Was missing; created. */
        CREATED,
        /** Is missing (only checking). */
        MISSING,
        /** Exists but differs from the catalog. */
        WRONG
    }

    private final Admin admin;
    private final TopicCatalog catalog;
    private final long timeoutMs;

    /** @param timeout how long to wait for each answer of the cluster */
    public TopicAudit(Admin admin, TopicCatalog catalog, Duration timeout) {
        this.admin = admin;
        this.catalog = catalog;
        this.timeoutMs = timeout.toMillis();
    }

    /**
     * Checks every topic of the catalog; creates the missing ones unless {@code checkOnly}.
     *
     * @param partitions partitions of a created topic; 0 for each topic's default
     * @param replicationFactor replicas of a created topic; empty for the brokers' {@code default.replication.factor}
     */
    public List<Finding> run(boolean checkOnly, int partitions, Optional<Short> replicationFactor)
            throws ExecutionException, TimeoutException, InterruptedException {
        Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
        List<Finding> findings = new ArrayList<>();
        List<NewTopic> create = new ArrayList<>();
        for (TopicSpec<?, ?> topic : Topics.ALL) {
            String name = catalog.name(topic);
            if (existing.contains(name)) {
                continue;
            }
            if (checkOnly) {
                findings.add(new Finding(name, Outcome.MISSING, "does not exist"));
            } else {
                create.add(new NewTopic(name, Optional.of(partitions > 0 ? partitions : topic.defaultPartitions()),
                        replicationFactor).configs(topic.configs()));
            }
        }
        for (var created : admin.createTopics(create).values().entrySet()) {
            try {
                created.getValue().get(timeoutMs, TimeUnit.MILLISECONDS);
                findings.add(new Finding(created.getKey(), Outcome.CREATED, "created"));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        }
        List<String> present = Topics.ALL.stream().map(catalog::name).filter(existing::contains).toList();
        findings.addAll(configFindings(present));
        findings.addAll(partitionFindings());
        return findings;
    }

    /** Every catalog config of every existing topic compared with the cluster's value. */
    private List<Finding> configFindings(List<String> present)
            throws ExecutionException, TimeoutException, InterruptedException {
        List<ConfigResource> resources = present.stream()
                .map(name -> new ConfigResource(ConfigResource.Type.TOPIC, name)).toList();
        Map<ConfigResource, Config> configs = admin.describeConfigs(resources).all().get(timeoutMs,
                TimeUnit.MILLISECONDS);
        List<Finding> findings = new ArrayList<>();
        for (String name : present) {
            TopicSpec<?, ?> topic = catalog.byName(name).orElseThrow();
            Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, name));
            List<String> wrong = topic.configs().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .filter(e -> !e.getValue().equals(value(config, e.getKey())))
                    .map(e -> e.getKey() + " is " + value(config, e.getKey()) + ", the catalog needs " + e.getValue())
                    .toList();
            findings.add(wrong.isEmpty()
                    ? new Finding(name, Outcome.OK, "as the catalog says")
                    : new Finding(name, Outcome.WRONG, String.join("; ", wrong) + " (kafka-configs.sh --alter "
                            + "--entity-type topics --entity-name " + name + " --add-config ...)"));
        }
        return findings;
    }

    private static String value(Config config, String key) {
        ConfigEntry entry = config == null ? null : config.get(key);
        return entry == null ? null : entry.value();
    }

    /** The co-partitioned topics (the GC reads them by object id in one task) must have as many partitions. */
    private List<Finding> partitionFindings() throws ExecutionException, TimeoutException, InterruptedException {
        List<String> names = Topics.CO_PARTITIONED.stream().map(catalog::name).toList();
        Set<String> existing = admin.listTopics().names().get(timeoutMs, TimeUnit.MILLISECONDS);
        Collection<String> present = names.stream().filter(existing::contains).toList();
        Map<String, Integer> counts = admin.describeTopics(present).allTopicNames()
                .get(timeoutMs, TimeUnit.MILLISECONDS)
                .values().stream().collect(Collectors.toMap(TopicDescription::name, d -> d.partitions().size()));
        if (counts.values().stream().distinct().count() <= 1) {
            return List.of();
        }
        return List.of(new Finding(String.join(", ", names), Outcome.WRONG, "partition counts differ " + counts
                + ": the gc-processor reads these topics co-partitioned; add partitions (kafka-topics.sh --alter "
                + "--partitions N) so they match"));
    }
}
