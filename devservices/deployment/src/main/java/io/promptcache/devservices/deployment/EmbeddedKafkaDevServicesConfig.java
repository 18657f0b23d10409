package io.promptcache.devservices.deployment;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Build-time configuration of the embedded Kafka broker dev service.
 */
@ConfigMapping(prefix = "quarkus.promptcache.devservices")
@ConfigRoot(phase = ConfigPhase.BUILD_TIME)
public interface EmbeddedKafkaDevServicesConfig {

    /**
     * Whether to start the embedded Kafka broker in dev mode and tests. It never starts when
     * {@code kafka.bootstrap.servers} is set: an external cluster always wins.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * Partitions of each catalog topic on the embedded broker; 0 keeps each topic's default from the catalog.
     */
    @WithDefault("0")
    int partitions();
}
