package io.promptcache.index.routing;

import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;

/** This replica's routing state: the trackers, the load board, the applier and the policy. */
@ApplicationScoped
public class Routing {

    private final RoutingTables tables = new RoutingTables();
    private final LoadBoard loads;
    private final EngineEventApplier applier;
    private final RoutingPolicy policy;
    private final IndexConfig.Routing config;

    Routing(IndexConfig config) {
        this.config = config.routing();
        this.loads = new LoadBoard(this.config.loadHalfLife(), System::nanoTime);
        this.applier = new EngineEventApplier(tables, loads, this.config.predictionTtl().toMillis(),
                System::currentTimeMillis);
        this.policy = new RoutingPolicy(this.config.threshold(), this.config.loadFactor());
    }

    public RoutingTables tables() {
        return tables;
    }

    public LoadBoard loads() {
        return loads;
    }

    public EngineEventApplier applier() {
        return applier;
    }

    public RoutingPolicy policy() {
        return policy;
    }

    public IndexConfig.Routing config() {
        return config;
    }
}
