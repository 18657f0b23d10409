package io.promptcache.gc.streams;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.apache.kafka.streams.KafkaClientSupplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.gc.budget.BookProgress;
import io.promptcache.gc.budget.BudgetProcessor;
import io.promptcache.gc.budget.KafkaBookProgress;
import io.promptcache.gc.budget.OrphanSweep;
import io.promptcache.gc.config.GcConfig;
import io.promptcache.gc.config.StaticMembership;
import io.promptcache.gc.ledger.DeleteSchedule;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.policy.EvictionPolicy;
import io.promptcache.gc.policy.Policy;
import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.kafka.InstanceId;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.object.GraceWindow;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.smallrye.common.annotation.Identifier;

/** Turns {@link GcConfig} into the topology's settings, and produces the metrics. */
@ApplicationScoped
public class GcSettings {

    private final GcConfig config;
    private final String instanceId;
    /**
     * Between TOMBSTONE and DELETE (the shared {@link GraceWindow}): a reader that got the object from a lookup just
     * before the tombstone has this long to finish its range GET.
     */
    private final Duration grace;

    GcSettings(GcConfig config, @ConfigProperty(name = "quarkus.http.port") int port,
            @ConfigProperty(name = GraceWindow.KEY, defaultValue = GraceWindow.DEFAULT) Duration grace) {
        this.config = config;
        this.grace = GraceWindow.check(grace);
        this.instanceId = InstanceId.of(config.instanceId(), port);
    }

    public String instanceId() {
        return instanceId;
    }

    TopologyProducer.Settings topology(TopicCatalog catalog, BookProgress bookProgress) {
        NodeLiveness liveness = new NodeLiveness(config.nodes().livenessIntervals(),
                config.nodes().lostAfter().toMillis());
        Map<String, Long> quotas = new HashMap<>();
        config.tenants().forEach((tenant, t) -> quotas.put(tenant, t.quotaBytes()));
        Policy policy = new Policy(config.highWatermark(), config.lowWatermark(), config.ttl().toMillis(),
                config.globalBudgetBytes().orElse(0), quotas, liveness, config.reclaimOnDemand());
        GcConfig.Delete delete = config.delete();
        GcConfig.Orphans orphans = config.orphans();
        return new TopologyProducer.Settings(catalog,
                new BudgetProcessor.Settings(policy, grace, config.evictInterval(), delete.interval(),
                        instanceId, ExternalNodes.statuses(GcConfig.EXTERNAL, config.storage().external(),
                                config.storage().bucket()),
                        EvictionPolicy.named(config.eviction()).toString()),
                new OrphanSweep.Settings(orphans.sweepInterval(), orphans.grace(), orphans.pageSize(),
                        config.storage().bucket(), orphans.maxSuspects()),
                bookProgress,
                new DeleteSchedule(delete.interval(), delete.maxPerCheck(), delete.backoff(), delete.backoffMax()),
                liveness);
    }

    /** The Kafka Streams clients, the main consumers static members of the GC's group ({@link StaticMembership}). */
    @Produces
    @Singleton
    KafkaClientSupplier clients() {
        return new StaticMembership(instanceId, config.staticMembership());
    }

    @Produces
    @Singleton
    GcMetrics metrics(MeterRegistry registry) {
        return new GcMetrics(registry);
    }

    @Produces
    @Singleton
    StorageOutbox outbox(NodeStorage storage) {
        return new StorageOutbox(storage, config.storage().workers(), config.storage().maxQueued());
    }

    void close(@Disposes StorageOutbox outbox) {
        outbox.close();
    }

    /** The topic names: the one place the GC reads {@value TopicCatalog#PREFIX_CONFIG_KEY}. */
    @Produces
    @Singleton
    TopicCatalog catalog(
            @ConfigProperty(name = TopicCatalog.PREFIX_CONFIG_KEY, defaultValue = TopicCatalog.DEFAULT_PREFIX) String prefix) {
        return new TopicCatalog(prefix);
    }

    /** The orphan sweep's proof that the book has caught up, from the GC group's offsets. */
    @Produces
    @Singleton
    KafkaBookProgress bookProgress(@Identifier("default-kafka-broker") Map<String, Object> kafka,
            @ConfigProperty(name = "quarkus.kafka-streams.application-id") String applicationId, TopicCatalog catalog) {
        return new KafkaBookProgress(ClientSettings.admin(kafka), applicationId, catalog.name(Topics.OBJECTS),
                KafkaBookProgress.budgetTopic(applicationId, TopologyProducer.BUDGET_TOPIC),
                config.orphans().proofWait());
    }

    void close(@Disposes KafkaBookProgress progress) {
        progress.close();
    }
}
