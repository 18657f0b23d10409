package io.promptcache.index.api;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.lookup.LookupService;
import io.promptcache.index.lookup.Prefixes;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.routing.BlockTracker;
import io.promptcache.index.routing.PoolKey;
import io.promptcache.index.routing.RouteService;
import io.promptcache.index.routing.Routing;
import io.promptcache.index.tenancy.Tenancy;

/** Cache-aware routing of requests to inference-engine backends (GPU tier), with the storage tier in one answer. */
@Path("/v1/namespaces/{namespace}/route")
@Tag(name = "route")
@Produces(MediaType.APPLICATION_JSON)
public class RouteResource {

    private final RouteService routes;
    private final LookupService lookup;
    private final Routing routing;
    private final NamespaceRegistry namespaces;
    private final Tenancy tenancy;
    private final IndexConfig config;

    RouteResource(RouteService routes, LookupService lookup, Routing routing, NamespaceRegistry namespaces,
            Tenancy tenancy,
            IndexConfig config) {
        this.routes = routes;
        this.lookup = lookup;
        this.routing = routing;
        this.namespaces = namespaces;
        this.tenancy = tenancy;
        this.config = config;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "The backend to send a prompt to", description = "Longest GPU-cached prefix per backend "
            + "(binary search), bounded load, least-loaded fallback; plus the storage tier's hit when it holds more. "
            + "503 + Retry-After while the replica replays engine-events.")
    public RouteResponse route(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            RouteRequest request) {
        Namespace spec = namespaces.require(tenancy.caller(headers), namespace);
        if (request == null) {
            throw ApiException.badRequest("send {\"tokens\": [...], \"candidates\": [{\"backend\": ...}]}");
        }
        return route(spec, request.tokens(), request.candidates(), request.dryRun());
    }

    @POST
    @Consumes(LookupRoute.TOKENS_BINARY)
    @Operation(summary = "The backend to send a prompt to, binary form", description = "Body: the token ids as "
            + "little-endian int32; candidates (backend ids, comma-separated; no loads: the router's own) and dryRun "
            + "as query parameters.")
    public RouteResponse routeBinary(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            @QueryParam("candidates") String candidates, @QueryParam("dryRun") boolean dryRun, byte[] body) {
        Namespace spec = namespaces.require(tenancy.caller(headers), namespace);
        List<RouteService.Candidate> named = candidates == null
                ? null
                : Arrays.stream(candidates.split(",")).map(c -> new RouteService.Candidate(c.trim(), null)).toList();
        return route(spec, Prefixes.binaryTokens(body, config), named, dryRun);
    }

    /** The backend, then the storage tier's longest prefix for the same tokens. */
    private RouteResponse route(Namespace spec, int[] tokens, List<RouteService.Candidate> candidates,
            boolean dryRun) {
        RouteService.RouteResult result = routes.route(spec, tokens, candidates, dryRun);
        return RouteResponse.of(result, lookup.lookup(spec, Prefixes.tokenChain(spec, tokens, tokens.length,
                config)));
    }

    @DELETE
    @Path("/backends/{backend}")
    @Operation(summary = "Forget a backend (it left) and the blocks tracked for it, for this namespace's model")
    public Map<String, Object> removeBackend(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            @PathParam("backend") String backend) {
        Namespace spec = namespaces.require(tenancy.caller(headers), namespace);
        BlockTracker tracker = routing.tables().existing(PoolKey.of(spec.spec()));
        if (tracker == null || !tracker.remove(backend)) {
            throw new ApiException(ApiErrorCode.NO_SUCH_BACKEND,
                    "backend " + backend + " is not tracked for this namespace");
        }
        return Map.of("removed", backend);
    }
}
