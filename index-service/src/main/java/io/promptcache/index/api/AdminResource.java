package io.promptcache.index.api;

import java.util.Collection;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.lookup.CollisionReport;

/** Operator views of this replica. */
@Path("/v1/admin")
@Tag(name = "admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private final CollisionReport collisions;

    AdminResource(CollisionReport collisions) {
        this.collisions = collisions;
    }

    @GET
    @Path("/collisions")
    @Operation(summary = "Prefix keys quarantined by the collision guard on this replica since start")
    public Collection<CollisionReport.Quarantined> collisions() {
        return collisions.quarantined().values();
    }
}
