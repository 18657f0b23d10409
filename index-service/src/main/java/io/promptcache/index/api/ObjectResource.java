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

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.store.ObjectService;
import io.promptcache.index.store.StorageClients;
import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** Objects: load (the one range GET, proxied), invalidate, delete. */
@Path("/v1/objects/{objectId}")
@Tag(name = "objects")
public class ObjectResource {

    private final ObjectService objects;
    private final ReplicaStores stores;
    private final StorageClients storage;
    private final Tenancy tenancy;
    private final IndexConfig config;

    ObjectResource(ObjectService objects, ReplicaStores stores, StorageClients storage, Tenancy tenancy,
            IndexConfig config) {
        this.objects = objects;
        this.stores = stores;
        this.storage = storage;
        this.tenancy = tenancy;
        this.config = config;
    }

    @GET
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    @Operation(summary = "Load an object's bytes (one range GET on its node, streamed through)", description = "For engines that do not speak S3. Range: one `bytes=a-b` range (206), or none (200). A "
            + "tombstoned object stays loadable during its grace window. 404 from the node invalidates it.")
    public Response load(@Context HttpHeaders headers, @PathParam("objectId") String objectId,
            @HeaderParam("Range") String range) {
        ObjectRecord record = objects.require(tenancy.caller(headers), objectId);
        NodeStatus node = record.getNodesCount() == 0 ? null : stores.node(record.getNodes(0));
        if (node == null) {
            throw ApiException.unavailable("StorageNodeGone", "the node of object " + objectId
                    + " is not known any more", config.retryAfter(), null);
        }
        ResponseInputStream<GetObjectResponse> in;
        try {
            in = storage.client().getObject(b -> b.bucket(record.getBucket()).key(record.getKey()).range(range)
                    .overrideConfiguration(storage.at(node.getEndpoint())));
        } catch (NoSuchKeyException e) {
            objects.invalidateMissing(ObjectId.parse(objectId), record);
            throw ApiException.notFound("ObjectMissing", "storage node " + node.getNodeId() + " does not have "
                    + "object " + objectId + " (lost); it is invalidated: treat it as a miss");
        } catch (S3Exception e) {
            if (e.statusCode() == 416) {
                throw new ApiException(416, "InvalidRange", "range " + range + " is outside the object's "
                        + record.getTotalBytes() + " bytes");
            }
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " failed the GET: " + e.getMessage(), config.retryAfter(), e);
        } catch (SdkException e) {
            throw ApiException.unavailable("StorageNodeFailed", "storage node " + node.getNodeId()
                    + " failed the GET: " + e.getMessage(), config.retryAfter(), e);
        }
        GetObjectResponse meta = in.response();
        StreamingOutput output = out -> {
            try (InputStream body = in) {
                body.transferTo(out);
            }
        };
        Response.ResponseBuilder response = Response.status(meta.contentRange() == null ? 200 : 206)
                .entity(output).type(MediaType.APPLICATION_OCTET_STREAM)
                .header(HttpHeaders.CONTENT_LENGTH, meta.contentLength());
        if (meta.contentRange() != null) {
            response.header("Content-Range", meta.contentRange());
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
            + "bytes after the grace window. 403 for anyone but the owner.")
    public Response delete(@Context HttpHeaders headers, @PathParam("objectId") String objectId) {
        return Response.accepted(state(objectId, objects.delete(tenancy.caller(headers), objectId))).build();
    }

    private static Map<String, Object> state(String objectId, ObjectRecord record) {
        return Map.of("objectId", objectId, "state",
                record.getState() == io.promptcache.schema.proto.ObjectState.OBJECT_STATE_LIVE
                        ? "LIVE"
                        : "TOMBSTONED",
                "deleteAfterMs", record.getTombstone().getDeleteAfterMs(),
                "reason", record.getTombstone().getReason().name());
    }
}
