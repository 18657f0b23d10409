package io.promptcache.index.storage;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Ready once {@link NodeFeed} has read {@code nodes} up to where it ended at start: the replica knows every node
 * that heartbeats, so its first stores are not refused "0 live".
 */
@Readiness
@ApplicationScoped
public class NodeFeedReadinessCheck implements HealthCheck {

    public static final String NAME = "node-feed";

    private final NodeFeed feed;

    NodeFeedReadinessCheck(NodeFeed feed) {
        this.feed = feed;
    }

    @Override
    public HealthCheckResponse call() {
        return HealthCheckResponse.named(NAME).status(feed.caughtUp()).build();
    }
}
