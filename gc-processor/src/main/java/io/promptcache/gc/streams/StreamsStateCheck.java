package io.promptcache.gc.streams;

import jakarta.enterprise.context.ApplicationScoped;

import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready while Kafka Streams processes: RUNNING, or REBALANCING (instances joining or leaving move tasks; work resumes
 * by itself). Any other state, ERROR above all (a dead global thread, a fatal task error), is DOWN with the state
 * named, so an operator or the local stack sees that this instance does no GC work.
 */
@Readiness
@ApplicationScoped
public class StreamsStateCheck implements HealthCheck {

    private final KafkaStreams streams;

    StreamsStateCheck(KafkaStreams streams) {
        this.streams = streams;
    }

    @Override
    public HealthCheckResponse call() {
        KafkaStreams.State state = streams.state();
        boolean working = state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING;
        return HealthCheckResponse.named("gc-streams").status(working).withData("streamsState", state.name())
                .build();
    }
}
