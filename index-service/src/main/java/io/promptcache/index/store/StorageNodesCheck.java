package io.promptcache.index.store;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

import io.promptcache.index.storage.ExternalEndpoints;
import io.promptcache.schema.node.ExternalNodes;
import io.smallrye.health.api.HealthGroup;

/**
 * Health group {@code store} ({@code /q/health/group/store}): UP while at least one storage node is live, i.e. a
 * store can be placed. Kept out of readiness on purpose: without storage nodes lookups still answer (misses
 * included), so a replica must keep receiving traffic. Its data names what is wrong with each external S3 endpoint
 * its probe refused (a missing bucket, wrong credentials): {@code promptcache up} prints it when stores cannot be
 * placed.
 */
@HealthGroup("store")
@ApplicationScoped
public class StorageNodesCheck implements HealthCheck {

    public static final String NAME = "storage-nodes";

    private final Placement placement;
    private final ExternalEndpoints external;

    StorageNodesCheck(Placement placement, ExternalEndpoints external) {
        this.placement = placement;
        this.external = external;
    }

    @Override
    public HealthCheckResponse call() {
        try {
            int live = placement.liveNodes().size();
            HealthCheckResponseBuilder answer = HealthCheckResponse.named(NAME).status(live > 0)
                    .withData("liveNodes", live);
            external.problems()
                    .forEach((id, problem) -> answer.withData(ExternalNodes.HEALTH_PROBLEM_PREFIX + id, problem));
            return answer.build();
        } catch (RuntimeException e) {
            return HealthCheckResponse.named(NAME).down().withData("error", e.toString()).build();
        }
    }
}
