package io.promptcache.index.api;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.error.ApiException;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.namespace.NamespaceSpec;

/** Namespaces: register the fields that define one, get its id. */
@Path("/v1/namespaces")
@Tag(name = "namespaces")
@Produces(MediaType.APPLICATION_JSON)
public class NamespaceResource {

    /** Tenant of namespaces registered in open mode without one. */
    static final String DEFAULT_TENANT = "default";

    private final NamespaceRegistry registry;
    private final Tenancy tenancy;

    NamespaceResource(NamespaceRegistry registry, Tenancy tenancy) {
        this.registry = registry;
        this.tenancy = tenancy;
    }

    @POST
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Register a namespace", description = "Idempotent: the id is derived from the fields. "
            + "201 when new to this replica, 200 when already registered.")
    public Response register(@Context HttpHeaders headers, NamespaceRequest request) {
        if (request == null) {
            throw ApiException.badRequest("send the namespace fields as JSON");
        }
        Caller caller = tenancy.caller(headers);
        String tenant = request.tenant();
        if (caller.open()) {
            tenant = tenant == null ? DEFAULT_TENANT : tenant;
        } else if (tenant == null) {
            tenant = caller.tenant();
        }
        NamespaceSpec spec = request.toSpec(tenant);
        tenancy.authorize(caller, spec.tenant(), "tenant " + spec.tenant());
        boolean created = registry.register(spec);
        return Response.status(created ? 201 : 200).entity(NamespaceResponse.of(spec)).build();
    }

    @GET
    @Path("/{namespace}")
    @Operation(summary = "A registered namespace's fields")
    public NamespaceResponse get(@Context HttpHeaders headers, @PathParam("namespace") String namespace) {
        return NamespaceResponse.of(registry.require(tenancy.caller(headers), namespace).spec());
    }
}
