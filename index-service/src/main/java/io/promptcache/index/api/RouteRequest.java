package io.promptcache.index.api;

import java.util.List;

import io.promptcache.index.routing.RouteService;

/**
 * A route request.
 *
 * @param tokens the prompt's token ids
 * @param candidates the backends that may serve it, with their load when the gateway knows it; absent = every
 *        backend that publishes KV events for the namespace's model
 * @param dryRun answer without recording the decision (no prediction, no load): what a route would say now
 */
public record RouteRequest(int[] tokens, List<RouteService.Candidate> candidates, boolean dryRun) {
}
