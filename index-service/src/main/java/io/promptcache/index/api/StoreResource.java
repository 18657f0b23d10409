package io.promptcache.index.api;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

import jakarta.ws.rs.Consumes;
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

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.store.SaveReason;
import io.promptcache.index.store.StorePlan;
import io.promptcache.index.store.StoreService;
import io.promptcache.index.tenancy.Caller;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.key.PrefixChain;

/**
 * Store: one-shot (a framed body: JSON head, then the KV bytes, streamed to the storage node) or two-step (reserve
 * an id and a PUT URL, PUT the bytes directly to the storage node, commit).
 */
@Path("/v1/namespaces/{namespace}")
@Tag(name = "store")
@Produces(MediaType.APPLICATION_JSON)
public class StoreResource {

    /**
     * One-shot store body: a little-endian uint32 {@code n}, then {@code n} bytes of UTF-8 JSON (a
     * {@link StoreRequest}), then, if the head says {@code tokensAfterHead: t}, {@code t} token ids as little-endian
     * int32, then the object's bytes up to Content-Length.
     */
    public static final String STORE_FRAMED = "application/vnd.promptcache.store";
    /** Largest accepted JSON head of a one-shot store. */
    static final int MAX_HEAD_BYTES = 16 << 20;
    /** Heads up to this size (a 190,000-token prompt as tokenBytes) are read into an array allocated up front. */
    static final int PREALLOCATED_HEAD_BYTES = 1 << 20;

    private final StoreService store;
    private final NamespaceRegistry namespaces;
    private final Tenancy tenancy;
    private final IndexConfig config;
    private final ObjectMapper json;

    StoreResource(StoreService store, NamespaceRegistry namespaces, Tenancy tenancy, IndexConfig config,
            ObjectMapper json) {
        this.store = store;
        this.namespaces = namespaces;
        this.tenancy = tenancy;
        this.config = config;
        this.json = json;
    }

    @POST
    @Path("/objects")
    @Consumes(STORE_FRAMED)
    @Operation(summary = "Store an object (one shot)", description = "Body: uint32 LE length n, n bytes of JSON "
            + "(tokens|tokenBytes|blockHashes|tokensAfterHead, layout, priority, pinned, fromBlock, reason), then "
            + "with tokensAfterHead: t the t token ids as little-endian int32, then the KV bytes of the blocks from "
            + "fromBlock on (default 0: all). Content-Length is required. A prompt that extends a live object's "
            + "prefix is stored as a continuation: only the blocks beyond it are written. 201 stored; 200 "
            + "deduplicated (a live object already covers the prefix; nothing stored); 409 ContinuationUnavailable "
            + "(fromBlock > 0 but no live object holds those blocks: send the whole prompt); 503 + Retry-After if a "
            + "storage node or Kafka fails (nothing advertised).")
    public Response store(@Context HttpHeaders headers, @PathParam("namespace") String namespace, InputStream body)
            throws IOException {
        Caller caller = tenancy.caller(headers);
        Namespace spec = namespaces.require(caller, namespace);
        long contentLength = contentLength(headers);
        DataInputStream in = new DataInputStream(body);
        int headLength;
        byte[] head;
        try {
            headLength = Integer.reverseBytes(in.readInt());
            if (headLength <= 0 || headLength > MAX_HEAD_BYTES || headLength > contentLength - 4) {
                throw ApiException.badRequest("the store body starts with the JSON head's length (uint32 LE); got "
                        + Integer.toUnsignedString(headLength) + " for a body of " + contentLength + " bytes");
            }
            if (headLength <= PREALLOCATED_HEAD_BYTES) {
                // into an array of the head's size: readNBytes gathers 8 KiB chunks, then copies them (a third of
                // the index's allocations under load, docs/benchmarks.md)
                head = new byte[headLength];
                in.readFully(head);
            } else {
                // as the bytes come: a declared length alone never allocates megabytes
                head = in.readNBytes(headLength);
                if (head.length != headLength) {
                    throw new EOFException();
                }
            }
        } catch (EOFException e) {
            throw ApiException.badRequest("the store body ended inside its head (uint32 LE length + JSON)");
        }
        StoreRequest request;
        try {
            request = json.readValue(head, StoreRequest.class);
        } catch (JsonProcessingException e) {
            throw new ApiException(ApiErrorCode.MALFORMED_JSON, "the store head is not valid JSON: "
                    + e.getOriginalMessage());
        }
        long afterHead = contentLength - 4 - headLength;
        if (request != null && request.tokensAfterHead() != null) {
            if (request.prefix().forms() != 0) {
                throw PrefixInput.notOneForm();
            }
            byte[] tokens = tokensAfterHead(in, request.tokensAfterHead(), afterHead);
            request = request.withTokensRead(tokens);
            afterHead -= tokens.length;
        }
        StorePlan plan = plan(spec, request, caller);
        long bytes = afterHead;
        if (bytes != plan.sentBytes()) {
            throw ApiException.badRequest("the body carries " + bytes + " object bytes after its head; the layout "
                    + "says " + plan.sentBytes() + " for blocks " + plan.fromBlock() + ".." + (plan.blocks() - 1)
                    + " (of " + plan.blocks() + ")");
        }
        StoreResponse response = StoreResponse.of(store.store(plan, in));
        return Response.status(response.deduplicated() ? 200 : 201).entity(response).build();
    }

    @POST
    @Path("/reservations")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Reserve a store (two-step, for large objects)", description = "Returns the object id, "
            + "the node and a PUT URL (presigned when the nodes use SigV4); PUT exactly `bytes` bytes there (the "
            + "blocks from `fromBlock` on when the reservation continues a live object), then POST the commit with "
            + "`node` (and `fromBlock`, `continues`, `uploadId` when answered). deduplicated=true: a live object "
            + "already covers the prefix.")
    public ReservationResponse reserve(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            StoreRequest request) {
        Caller caller = tenancy.caller(headers);
        Namespace spec = namespaces.require(caller, namespace);
        return ReservationResponse.of(spec.idText(), store.reserve(plan(spec, request, caller)));
    }

    @POST
    @Path("/reservations/{objectId}/commit")
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Commit a reservation", description = "Checks the uploaded size on the node, then "
            + "publishes the object and its prefixes in one Kafka transaction. Idempotent.")
    public Response commit(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            @PathParam("objectId") String objectId, CommitRequest request) {
        Caller caller = tenancy.caller(headers);
        Namespace spec = namespaces.require(caller, namespace);
        if (request == null) {
            throw ApiException.badRequest("send the reservation's description and node as JSON");
        }
        StoreResponse response = StoreResponse
                .of(store.commitReservation(plan(spec, request.store(), caller), objectId, request.node(),
                        request.uploadId(), request.continues()));
        return Response.status(response.deduplicated() ? 200 : 201).entity(response).build();
    }

    /**
     * The {@code count} token ids after a framed body's head, as they are on the wire (little-endian int32): 413 above
     * {@code promptcache.index.max-tokens} before anything is read, 400 if the body is shorter.
     */
    private byte[] tokensAfterHead(DataInputStream in, int count, long left) throws IOException {
        if (count <= 0) {
            throw ApiException.badRequest("tokensAfterHead must be a positive number of token ids; got " + count);
        }
        if (count > config.maxTokens()) {
            throw new ApiException(ApiErrorCode.TOO_MANY_TOKENS, count + " tokens; at most " + config.maxTokens()
                    + " (promptcache.index.max-tokens)");
        }
        if (4L * count > left) {
            throw ApiException.badRequest("tokensAfterHead says " + count + " token ids (" + 4L * count
                    + " bytes) follow the head; the body has " + left + " bytes after it");
        }
        byte[] tokens = new byte[4 * count];
        try {
            in.readFully(tokens);
        } catch (EOFException e) {
            throw ApiException.badRequest("the store body ended inside the " + count + " token ids after its head");
        }
        return tokens;
    }

    private StorePlan plan(Namespace spec, StoreRequest request, Caller caller) {
        if (request == null) {
            throw ApiException.badRequest("send tokens|tokenBytes|blockHashes and layout as JSON");
        }
        if (request.tokensAfterHead() != null) {
            throw ApiException.badRequest("tokensAfterHead is for the one-shot store's framed body (the ids follow "
                    + "its JSON head); a reservation sends tokens, tokenBytes or blockHashes");
        }
        PrefixChain chain = request.prefix().chain(spec, config);
        if (chain.blocks() == 0) {
            throw ApiException.badRequest("fewer tokens than one block (" + spec.blockSize()
                    + "): only complete blocks are stored");
        }
        if (request.layout() == null) {
            throw ApiException.badRequest("layout is required: {\"bytesPerBlock\": n} or {\"blockEndOffsets\": [...]}");
        }
        long[] usable = request.layout().usableBytes(chain.blocks());
        int fromBlock = request.fromBlock() == null ? 0 : request.fromBlock();
        if (fromBlock < 0 || fromBlock >= chain.blocks()) {
            throw ApiException.badRequest("fromBlock must be between 0 and " + (chain.blocks() - 1) + " (the blocks"
                    + " before it are shared, at least the last one is sent); got " + fromBlock);
        }
        return new StorePlan(spec, chain, request.layout().toProto(chain.blocks()), usable,
                request.priority() == null ? 0 : request.priority(), Boolean.TRUE.equals(request.pinned()), fromBlock,
                caller.principal(), SaveReason.parse(request.reason()));
    }

    private static long contentLength(HttpHeaders headers) {
        String value = headers.getHeaderString(HttpHeaders.CONTENT_LENGTH);
        if (value == null) {
            throw new ApiException(ApiErrorCode.LENGTH_REQUIRED, "a one-shot store needs Content-Length (the bytes are "
                    + "streamed to the storage node); for uploads of unknown length use the two-step form");
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Content-Length is not a number");
        }
    }
}
