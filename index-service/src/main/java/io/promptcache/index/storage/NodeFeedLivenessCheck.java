package io.promptcache.index.storage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Liveness;

/**
 * Live while {@link NodeFeed}'s reader of {@code nodes} runs: it starts over by itself after any failure of its
 * consumer (a broker slow or down), so it ends only for good (an {@link Error}), and a replica without it would know no
 * node and refuse every store until restarted. Down then, so an orchestrator restarts the replica.
 */
@Liveness
@ApplicationScoped
public class NodeFeedLivenessCheck implements HealthCheck {

    private final NodeFeed feed;

    NodeFeedLivenessCheck(NodeFeed feed) {
        this.feed = feed;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named(NodeFeedReadinessCheck.NAME).status(!feed.readerStoppedForGood()).build();
    }
}
