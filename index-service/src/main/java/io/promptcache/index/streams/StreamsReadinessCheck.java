package io.promptcache.index.streams;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once Kafka Streams is RUNNING: the global stores (PrefixMap, ObjectTable, namespaces) have been restored up to
 * the end of their topics, so a lookup answers from a caught-up copy. Before that, lookups get 503.
 */
@Readiness
@ApplicationScoped
public class StreamsReadinessCheck implements HealthCheck {

    public static final String NAME = "prefix-map";

    private final KafkaStreams streams;

    StreamsReadinessCheck(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public HealthCheckResponse call() {
        KafkaStreams.State state = streams.state();
        return HealthCheckResponse.named(NAME).status(state == KafkaStreams.State.RUNNING)
                .withData("streamsState", state.name()).build();
    }
}
