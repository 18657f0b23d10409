package io.promptcache.index.api;

import java.util.List;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.lookup.CollisionReport;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.namespace.NamespaceId;

/**
 * Operator views of this replica. Like every {@code /v1/} call they need an API key (outside open mode); a key sees
 * what belongs to its tenant only, and the storage nodes (shared by every tenant: engines get their URLs anyway).
 */
@Path("/v1/admin")
@Tag(name = "admin")
@Produces(MediaType.APPLICATION_JSON)
public class AdminResource {

    private final CollisionReport collisions;
    private final NamespaceRegistry namespaces;
    private final Tenancy tenancy;
    private final NodeDirectory nodes;

    AdminResource(CollisionReport collisions, NamespaceRegistry namespaces, Tenancy tenancy, NodeDirectory nodes) {
        this.collisions = collisions;
        this.namespaces = namespaces;
        this.tenancy = tenancy;
        this.nodes = nodes;
    }

    @GET
    @Path("/nodes")
    @Operation(summary = "The storage nodes and external S3 endpoints this replica knows, and whether it serves "
            + "their objects and sends new ones there now")
    public List<NodeView> nodes(@Context HttpHeaders headers) {
        tenancy.caller(headers);
        long now = System.currentTimeMillis();
        return nodes.judged().stream().map(judged -> NodeView.of(judged, now)).toList();
    }

    @GET
    @Path("/collisions")
    @Operation(summary = "Prefix keys quarantined by the collision guard on this replica since start, in the "
            + "namespaces of the caller's tenant")
    public List<CollisionReport.Quarantined> collisions(@Context HttpHeaders headers) {
        Caller caller = tenancy.caller(headers);
        return collisions.quarantined().values().stream().filter(q -> visible(caller, q.namespace())).toList();
    }

    /** Whether {@code caller} may see what concerns that namespace (one it could use). */
    private boolean visible(Caller caller, String namespaceId) {
        if (caller.open()) {
            return true;
        }
        Namespace namespace = namespaces.find(NamespaceId.parse(namespaceId));
        return namespace != null && caller.mayUse(namespace.tenant());
    }
}
