package io.promptcache.index.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.routing.EngineEventIngest;
import io.promptcache.index.routing.Routing;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;

/** What this replica's router knows. */
@Path("/v1/routing")
@Tag(name = "route")
@Produces(MediaType.APPLICATION_JSON)
public class RoutingStatusResource {

    private final Routing routing;
    private final EngineEventIngest ingest;
    private final Tenancy tenancy;

    RoutingStatusResource(Routing routing, EngineEventIngest ingest, Tenancy tenancy) {
        this.routing = routing;
        this.ingest = ingest;
        this.tenancy = tenancy;
    }

    @GET
    @Path("/status")
    @Operation(summary = "Routing state of this replica: replay, and blocks tracked per backend and pool")
    public Map<String, Object> status(@Context HttpHeaders headers) {
        Caller caller = tenancy.caller(headers);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("caughtUp", ingest.caughtUp());
        out.put("replayMillis", ingest.replayMillis());
        out.put("eventsRead", ingest.read());
        List<Map<String, Object>> pools = routing.tables().all().entrySet().stream()
                .filter(e -> caller.mayUse(e.getKey().tenant())).map(e -> {
                    Map<String, Object> pool = new LinkedHashMap<>();
                    pool.put("pool", e.getKey());
                    pool.put("blocks", e.getValue().sizes());
                    return pool;
                }).toList();
        out.put("pools", pools);
        return out;
    }
}
