package io.promptcache.index.api;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.annotation.JsonInclude;

import io.promptcache.index.lookup.LookupResult;
import io.promptcache.index.routing.RouteService;
import io.promptcache.index.routing.RoutingPolicy;

/**
 * Where to send a request.
 *
 * @param backend the chosen backend
 * @param reason {@code cache-hit}, {@code load-fallback} or {@code no-match}
 * @param matchedBlocks blocks of the prompt's prefix the chosen backend's GPU holds
 * @param totalBlocks complete blocks of the prompt
 * @param hitRatio {@code matchedBlocks / totalBlocks}
 * @param candidates every candidate with its GPU match, load, and its CPU and storage tiers' matches
 * @param storage the storage tier's longest prefix when it holds more blocks than the chosen backend's GPU: the
 *        object the engine can load (one range GET), else absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RouteResponse(String backend, String reason, int matchedBlocks, int totalBlocks, double hitRatio,
        List<CandidateMatch> candidates, LookupResponse storage) {

    /** The decision, with the storage tier's hit when it holds more blocks than the chosen backend's GPU. */
    static RouteResponse of(RouteService.RouteResult result, LookupResult storage) {
        RoutingPolicy.Decision d = result.decision();
        boolean storageHelps = storage.hit() && storage.blocks() > d.matchedBlocks();
        return new RouteResponse(d.backend(), d.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                d.matchedBlocks(), result.totalBlocks(), d.hitRatio(),
                result.candidates().stream().map(c -> new CandidateMatch(c.backend(), c.matchedBlocks(), c.load(),
                        result.offloaded().get(c.backend()))).toList(),
                storageHelps ? LookupResponse.of(storage) : null);
    }

    /**
     * One candidate.
     *
     * @param backend id
     * @param matchedBlocks blocks of the prefix its GPU holds (what the decision weighs)
     * @param load its load
     * @param tiers blocks of the prefix its offload tiers hold ({@code cpu}, {@code storage}), absent when none
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CandidateMatch(String backend, int matchedBlocks, double load, Map<String, Integer> tiers) {
    }
}
