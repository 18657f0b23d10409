package io.promptcache.index.store;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;

import io.smallrye.health.api.HealthGroup;

/**
 * Health group {@code store} ({@code /q/health/group/store}): UP while at least one storage node is live, i.e. a
 * store can be placed. Kept out of readiness on purpose: without storage nodes lookups still answer (misses
 * included), so a replica must keep receiving traffic.
 */
@HealthGroup("store")
@ApplicationScoped
public class StorageNodesCheck implements HealthCheck {

    public static final String NAME = "storage-nodes";

    private final Placement placement;

    StorageNodesCheck(Placement placement) {
        this.placement = placement;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            int live = placement.liveNodes().size();
            return HealthCheckResponse.named(NAME).status(live > 0).withData("liveNodes", live).build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named(NAME).down().withData("error", e.toString()).build();
        }
    }
}
