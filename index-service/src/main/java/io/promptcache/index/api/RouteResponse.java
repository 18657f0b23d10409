package io.promptcache.index.api;

import java.util.List;
import java.util.Locale;

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
 * @param candidates every candidate with its match and load
 * @param storage the storage tier's longest prefix when it holds more blocks than the chosen backend's GPU: the
 *        object the engine can load (one range GET), else absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RouteResponse(String backend, String reason, int matchedBlocks, int totalBlocks, double hitRatio,
        List<RoutingPolicy.Candidate> candidates, LookupResponse storage) {

    /** The decision, with the storage tier's hit when it holds more blocks than the chosen backend's GPU. */
    static RouteResponse of(RouteService.RouteResult result, LookupResult storage) {
        RoutingPolicy.Decision d = result.decision();
        boolean storageHelps = storage.hit() && storage.blocks() > d.matchedBlocks();
        return new RouteResponse(d.backend(), d.reason().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                d.matchedBlocks(), result.totalBlocks(), d.hitRatio(), result.candidates(),
                storageHelps ? LookupResponse.of(storage) : null);
    }
}
