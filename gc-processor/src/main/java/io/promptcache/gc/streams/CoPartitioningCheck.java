package io.promptcache.gc.streams;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.smallrye.common.annotation.Identifier;

/**
 * Readiness: {@code objects}, {@code access} and {@code prefixes} have the same number of partitions. The ledger
 * reads an object's record, its accesses and its prefix references (re-keyed from {@code prefixes}, whose count
 * the repartition topic inherits) in one task per partition number; with different counts an object's inputs would
 * land in different tasks and budgets would be wrong. The catalog creates all three alike; this catches a cluster
 * whose topics were created otherwise. Checked until it passes once (partition counts only grow by an operator).
 */
@Readiness
@ApplicationScoped
public class CoPartitioningCheck implements HealthCheck {

    private static final Logger LOG = LoggerFactory.getLogger(CoPartitioningCheck.class);

    @Inject
    @Identifier("default-kafka-broker")
    Map<String, Object> kafka;

    @Inject
    TopicCatalog catalog;

    private volatile boolean passed;

    @Override
    public HealthCheckResponse call() {
        if (passed) {
            return HealthCheckResponse.up("co-partitioning");
        }
        List<String> topics = Topics.CO_PARTITIONED.stream().map(catalog::name).toList();
        Map<String, Object> config = ClientSettings.admin(kafka);
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000);
        try (Admin admin = Admin.create(config)) {
            Map<String, Integer> counts = admin.describeTopics(topics).allTopicNames().get(5, TimeUnit.SECONDS)
                    .values().stream()
                    .collect(Collectors.toMap(TopicDescription::name, d -> d.partitions().size()));
            if (counts.values().stream().distinct().count() == 1) {
                passed = true;
                return HealthCheckResponse.up("co-partitioning");
            }
            LOG.error("Topics {} must have the same number of partitions, not {}: the gc-processor reads them "
                    + "co-partitioned by object id; add partitions so they match", topics, counts);
            return HealthCheckResponse.named("co-partitioning").down().withData("partitions", counts.toString())
                    .build();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return HealthCheckResponse.named("co-partitioning").down().withData("error", String.valueOf(e))
                    .build();
        }
    }
}
