package io.promptcache.devservices.deployment;

import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.topic.TopicCatalog;
import io.quarkus.deployment.IsDevServicesSupportedByLaunchMode;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.BuildSteps;
import io.quarkus.deployment.builditem.DevServicesResultBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.Startable;
import io.quarkus.deployment.dev.devservices.DevServicesConfig;
import io.quarkus.runtime.configuration.ConfigUtils;

/**
 * Starts a real in-JVM Kafka broker (KRaft) with the catalog's topics for dev mode and tests, and points the
 * application at it, unless {@code kafka.bootstrap.servers} is set (an external cluster always wins).
 */
@BuildSteps(onlyIf = {IsDevServicesSupportedByLaunchMode.class, DevServicesConfig.Enabled.class})
public class EmbeddedKafkaDevServiceProcessor {

    static final String FEATURE = "promptcache-devservices";
    static final String BOOTSTRAP_SERVERS = "kafka.bootstrap.servers";
    static final String STREAMS_BOOTSTRAP_SERVERS = "quarkus.kafka-streams.bootstrap-servers";

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaDevServiceProcessor.class);

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    DevServicesResultBuildItem startEmbeddedKafka(EmbeddedKafkaDevServicesConfig config) {
        if (!config.enabled()) {
            LOG.debug("Embedded Kafka dev service disabled by configuration");
            return null;
        }
        if (ConfigUtils.isPropertyNonEmpty(BOOTSTRAP_SERVERS)) {
            LOG.debug("Embedded Kafka dev service not started: {} is set", BOOTSTRAP_SERVERS);
            return null;
        }
        TopicCatalog catalog = new TopicCatalog(ConfigProvider.getConfig()
                .getOptionalValue(TopicCatalog.PREFIX_CONFIG_KEY, String.class).orElse(TopicCatalog.DEFAULT_PREFIX));
        return DevServicesResultBuildItem.owned()
                .feature(FEATURE)
                .serviceName("embedded-kafka")
                .serviceConfig(new ServiceIdentity(catalog.prefix(), config.partitions()))
                .startable(() -> new EmbeddedKafkaStartable(catalog, config.partitions()))
                .configProvider(Map.of(BOOTSTRAP_SERVERS, Startable::getConnectionInfo,
                        STREAMS_BOOTSTRAP_SERVERS, Startable::getConnectionInfo))
                .build();
    }

    /** Two applications (or restarts) asking for the same identity share one running broker. */
    record ServiceIdentity(String topicPrefix, int partitions) {
    }
}
