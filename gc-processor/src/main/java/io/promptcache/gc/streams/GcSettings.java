package io.promptcache.gc.streams;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import org.eclipse.microprofile.config.inject.ConfigProperty;

import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.gc.budget.BudgetProcessor;
import io.promptcache.gc.budget.OrphanSweep;
import io.promptcache.gc.config.GcConfig;
import io.promptcache.gc.ledger.DeleteSchedule;
import io.promptcache.gc.metrics.GcMetrics;
import io.promptcache.gc.policy.Policy;
import io.promptcache.gc.storage.NodeStorage;
import io.promptcache.gc.storage.StorageOutbox;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.topic.TopicCatalog;

/** Turns {@link GcConfig} into the topology's settings, and produces the metrics. */
@ApplicationScoped
public class GcSettings {

    private final GcConfig config;
    private final String instanceId;

    GcSettings(GcConfig config, @ConfigProperty(name = "quarkus.http.port") int port) {
        this.config = config;
        this.instanceId = config.instanceId().orElseGet(() -> hostName() + ":" + port);
    }

    public String instanceId() {
        return instanceId;
    }

    TopologyProducer.Settings topology(TopicCatalog catalog) {
        NodeLiveness liveness = new NodeLiveness(config.nodes().livenessIntervals(),
                config.nodes().lostAfter().toMillis());
        Map<String, Long> quotas = new HashMap<>();
        config.tenants().forEach((tenant, t) -> quotas.put(tenant, t.quotaBytes()));
        Policy policy = new Policy(config.highWatermark(), config.lowWatermark(), config.ttl().toMillis(),
                config.globalBudgetBytes().orElse(0), quotas, liveness, config.reclaimOnDemand());
        GcConfig.Delete delete = config.delete();
        GcConfig.Orphans orphans = config.orphans();
        return new TopologyProducer.Settings(catalog,
                new BudgetProcessor.Settings(policy, config.grace(), config.evictInterval(), delete.interval(),
                        instanceId, ExternalNodes.statuses(GcConfig.EXTERNAL, config.storage().external(),
                                config.storage().bucket())),
                new OrphanSweep.Settings(orphans.sweepInterval(), orphans.grace(), orphans.pageSize(),
                        config.storage().bucket()),
                new DeleteSchedule(delete.interval(), delete.maxPerCheck(), delete.backoff(), delete.backoffMax()),
                liveness);
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

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "gc";
        }
    }
}
