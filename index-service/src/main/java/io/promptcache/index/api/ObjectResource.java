package io.promptcache.index.api;

import java.io.InputStream;
import java.util.Map;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.storage.NodeStorage;
import io.promptcache.index.store.ObjectService;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.object.TombstoneReasons;
import io.promptcache.schema.proto.ObjectRecord;

/** Objects: load (the one range GET, proxied), invalidate, delete. */
@Path("/v1/objects/{objectId}")
@Tag(name = "objects")
public class ObjectResource {

    private final ObjectService objects;
    private final Tenancy tenancy;

    ObjectResource(ObjectService objects, Tenancy tenancy) {
        this.objects = objects;
        this.tenancy = tenancy;
    }

    @GET
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    @Operation(summary = "Load an object's bytes (one range GET on its node, streamed through)", description = "For engines that do not speak S3. Range: one `bytes=a-b` range (206), or none (200). A "
            + "tombstoned object stays loadable during its grace window. 404 from the node invalidates it.")
    public Response load(@Context HttpHeaders headers, @PathParam("objectId") String objectId,
            @HeaderParam("Range") String range) {
        NodeStorage.Body body = objects.load(tenancy.caller(headers), objectId, range);
        StreamingOutput output = out -> {
            try (InputStream in = body.in()) {
                in.transferTo(out);
            }
        };
        Response.ResponseBuilder response = Response.status(body.contentRange() == null ? 200 : 206)
                .entity(output).type(MediaType.APPLICATION_OCTET_STREAM)
                .header(HttpHeaders.CONTENT_LENGTH, body.length());
        if (body.contentRange() != null) {
            response.header("Content-Range", body.contentRange());
        }
        return response.build();
    }

    @POST
    @Path("/invalidate")
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Invalidate (the object was missing on GET)", description = "Tombstones the object: lookups stop returning it at once. Idempotent.")
    public Map<String, Object> invalidate(@Context HttpHeaders headers, @PathParam("objectId") String objectId) {
        return state(objectId, objects.invalidate(tenancy.caller(headers), objectId));
    }

    @DELETE
    @Produces(MediaType.APPLICATION_JSON)
    @Operation(summary = "Delete (owner only)", description = "Phase one: tombstone; the gc-processor deletes the "
            + "bytes after the grace window. 403 NotOwner for anyone but its owner: the API key that stored it (in "
            + "open mode, anyone).")
    public Response delete(@Context HttpHeaders headers, @PathParam("objectId") String objectId) {
        return Response.accepted(state(objectId, objects.delete(tenancy.caller(headers), objectId))).build();
    }

    private static Map<String, Object> state(String objectId, ObjectRecord record) {
        return Map.of("objectId", objectId, "state",
                record.getState() == io.promptcache.schema.proto.ObjectState.OBJECT_STATE_LIVE
                        ? "LIVE"
                        : "TOMBSTONED",
                "deleteAfterMs", record.getTombstone().getDeleteAfterMs(),
                "reason", TombstoneReasons.word(record.getTombstone().getReason()));
    }
}
