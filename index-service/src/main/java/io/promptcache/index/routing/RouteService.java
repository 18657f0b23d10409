package io.promptcache.index.routing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.lookup.Prefixes;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.schema.hash.RollingHashChain;
import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.proto.RoutePredicted;
import io.promptcache.schema.topic.Topics;

/**
 * {@code route}: which backend should serve a request, from the GPU-tier trackers, and - in the same answer - the
 * storage tier's longest cached prefix when it holds more than the chosen backend's GPU (added by the resource,
 * from the lookup). The decision is recorded
 * for the chosen backend at once and published on {@code engine-events} as a {@code RoutePredicted}, so every
 * replica tracks it and counts it as load.
 */
@ApplicationScoped
public class RouteService {

    private static final Logger LOG = LoggerFactory.getLogger(RouteService.class);

    private final Routing routing;
    private final EngineEventIngest ingest;
    private final KafkaProducers producers;
    private final RoutingMetrics metrics;
    private final IndexConfig config;

    RouteService(Routing routing, EngineEventIngest ingest, KafkaProducers producers,
            RoutingMetrics metrics, IndexConfig config) {
        this.routing = routing;
        this.ingest = ingest;
        this.producers = producers;
        this.metrics = metrics;
        this.config = config;
    }

    /**
     * One wanted backend.
     *
     * @param backend backend id, as its engine reports it ({@code <backend_id>/dp<rank>} for a data-parallel rank)
     * @param load its load as the gateway knows it (e.g. requests running); null = the load this router sees
     */
    public record Candidate(String backend, Double load) {
    }

    public RouteResult route(Namespace namespace, int[] tokens, List<Candidate> candidates, boolean dryRun) {
        long start = System.nanoTime();
        if (!routing.config().enabled()) {
            throw new ApiException(ApiErrorCode.ROUTING_DISABLED, "routing is off on this replica "
                    + "(promptcache.index.routing.enabled=false)");
        }
        if (!ingest.caughtUp()) {
            throw new ApiException(ApiErrorCode.ROUTING_NOT_READY, "this replica is still reading engine-events (its "
                    + "trackers are incomplete); retry shortly");
        }
        if (tokens == null) {
            throw ApiException.badRequest("send {\"tokens\": [...]}: the prompt's token ids");
        }
        Prefixes.requireTokens(tokens.length, config);
        PoolKey pool = PoolKey.of(namespace.spec());
        BlockTracker tracker = routing.tables().tracker(pool);
        long[] ids = RollingHashChain.of(pool.blockSize(), tokens);
        Collection<String> names = candidates == null ? tracker.sizes().keySet() : names(candidates);
        if (names.isEmpty()) {
            throw new ApiException(ApiErrorCode.NO_BACKEND, "no backend known for this namespace: engines publish KV "
                    + "events to engine-events (model_name \"" + pool.model() + "\", block_size "
                    + pool.blockSize() + "), or name \"candidates\" in the request");
        }
        Map<String, Integer> matches = tracker.matches(ids, names);
        List<RoutingPolicy.Candidate> scored = new ArrayList<>();
        for (String backend : names) {
            scored.add(new RoutingPolicy.Candidate(backend, matches.get(backend), load(backend, candidates)));
        }
        RoutingPolicy.Decision decision = routing.policy().decide(scored, ids.length);
        Map<String, Map<String, Integer>> offloaded = offloaded(pool, ids, names);
        if (!dryRun) {
            tracker.predicted(decision.backend(), ids);
            routing.loads().routed(decision.backend());
            publish(pool, decision.backend(), ids);
        }
        metrics.decision(decision.reason(), System.nanoTime() - start);
        return new RouteResult(decision, ids.length, scored, offloaded);
    }

    /** Per candidate, the blocks of the prefix its CPU and storage tiers hold (only the tiers holding some). */
    private Map<String, Map<String, Integer>> offloaded(PoolKey pool, long[] ids, Collection<String> names) {
        Map<String, Map<String, Integer>> out = new HashMap<>();
        for (Tier tier : List.of(Tier.CPU, Tier.STORAGE)) {
            BlockTracker tracker = routing.tables().existing(pool, tier);
            if (tracker == null) {
                continue;
            }
            tracker.matches(ids, names).forEach((backend, blocks) -> {
                if (blocks > 0) {
                    out.computeIfAbsent(backend, b -> new TreeMap<>()).put(tier.tag(), blocks);
                }
            });
        }
        return out;
    }

    /**
     * @param decision what was chosen and why (on the GPU tier)
     * @param totalBlocks complete blocks of the request
     * @param candidates every candidate with its GPU match and load
     * @param offloaded per candidate, its CPU and storage tiers' matches (tier name -> blocks), where it has some
     */
    public record RouteResult(RoutingPolicy.Decision decision, int totalBlocks,
            List<RoutingPolicy.Candidate> candidates, Map<String, Map<String, Integer>> offloaded) {
    }

    private static List<String> names(List<Candidate> candidates) {
        List<String> names = new ArrayList<>(candidates.size());
        for (int i = 0; i < candidates.size(); i++) {
            Candidate c = candidates.get(i);
            if (c == null || c.backend() == null || c.backend().isBlank()) {
                throw ApiException.badRequest("candidates[" + i + "].backend is missing");
            }
            if (c.load() != null && !(c.load() >= 0)) {
                throw ApiException.badRequest("candidates[" + i + "].load must be a number >= 0");
            }
            if (names.contains(c.backend())) {
                throw ApiException.badRequest("candidates[" + i + "]: backend " + c.backend() + " is named twice");
            }
            names.add(c.backend());
        }
        return names;
    }

    private double load(String backend, List<Candidate> candidates) {
        if (candidates != null) {
            for (Candidate c : candidates) {
                if (c.backend().equals(backend) && c.load() != null) {
                    return c.load();
                }
            }
        }
        return routing.loads().load(backend);
    }

    private void publish(PoolKey pool, String backend, long[] ids) {
        RoutePredicted.Builder predicted = RoutePredicted.newBuilder().setDecidedBy(producers.instanceId());
        for (long id : ids) {
            predicted.addBlockIds(id);
        }
        EngineEvent.Builder event = EngineEvent.newBuilder().setSchemaVersion(1)
                .setTimestampMs(System.currentTimeMillis()).setBackendId(backend).setTenantId(pool.tenant())
                .setModelName(pool.model()).setBlockSize(pool.blockSize()).setMedium("gpu").setPredicted(predicted);
        if (!pool.lora().isEmpty()) {
            event.setLoraName(pool.lora());
        }
        if (!pool.salt().isEmpty()) {
            event.setAdditionalSalt(pool.salt());
        }
        try {
            producers.plain().send(producers.record(Topics.ENGINE_EVENTS, new BackendId(backend), event.build()),
                    (metadata, e) -> {
                        if (e != null) {
                            LOG.warn("Routing decision for {} not shared with other replicas: {}", backend,
                                    e.getMessage());
                        }
                    });
        } catch (IllegalArgumentException e) {
            LOG.debug("Backend id {} cannot key engine-events ({}): decision kept on this replica only", backend,
                    e.getMessage());
        }
    }
}
