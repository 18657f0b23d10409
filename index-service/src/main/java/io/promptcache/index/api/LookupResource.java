package io.promptcache.index.api;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;

import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.lookup.LookupService;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.hash.PrefixChain;
import io.smallrye.common.annotation.NonBlocking;

/**
 * Lookup: the longest cached prefix, decided from this replica's memory. Runs on the event loop (no blocking I/O:
 * RocksDB point reads only). JSON ({@code tokens} or {@code blockHashes}) or the binary token form.
 */
@Path("/v1/namespaces/{namespace}/lookup")
@Tag(name = "lookup")
@Produces(MediaType.APPLICATION_JSON)
public class LookupResource {

    /** Binary request: the token ids as little-endian int32, nothing else. */
    public static final String TOKENS_BINARY = "application/vnd.promptcache.tokens";

    private final LookupService lookup;
    private final NamespaceRegistry namespaces;
    private final Tenancy tenancy;
    private final IndexConfig config;
    private final IndexMetrics metrics;

    LookupResource(LookupService lookup, NamespaceRegistry namespaces, Tenancy tenancy, IndexConfig config,
            IndexMetrics metrics) {
        this.metrics = metrics;
        this.lookup = lookup;
        this.namespaces = namespaces;
        this.tenancy = tenancy;
        this.config = config;
    }

    @POST
    @NonBlocking
    @Consumes(MediaType.APPLICATION_JSON)
    @Operation(summary = "Longest cached prefix of tokens or engine block hashes", description = "200 with hit=false on a miss; 503 + Retry-After while the replica restores its state.")
    public LookupResponse lookup(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            PrefixInput request) {
        long start = System.nanoTime();
        Namespace spec = namespaces.require(tenancy.caller(headers), namespace);
        if (request == null) {
            throw ApiException.badRequest("send {\"tokens\": [...]} or {\"blockHashes\": [...]}");
        }
        LookupResponse response = lookup.lookup(spec, request.chain(spec, config));
        metrics.lookupHandler(System.nanoTime() - start);
        return response;
    }

    @POST
    @NonBlocking
    @Consumes(TOKENS_BINARY)
    @Operation(summary = "Longest cached prefix, binary form", description = "Body: the token ids as little-endian int32 (4 bytes per token).")
    public LookupResponse lookupBinary(@Context HttpHeaders headers, @PathParam("namespace") String namespace,
            byte[] body) {
        long start = System.nanoTime();
        Namespace spec = namespaces.require(tenancy.caller(headers), namespace);
        LookupResponse response = lookup.lookup(spec, binaryChain(spec, body, config));
        metrics.lookupHandler(System.nanoTime() - start);
        return response;
    }

    static PrefixChain binaryChain(Namespace spec, byte[] body, IndexConfig config) {
        int[] tokens = binaryTokens(body, config);
        return PrefixInput.tokenChain(spec, tokens, tokens.length, config);
    }

    /** The token ids of a {@link #TOKENS_BINARY} body (400 / 413 on bad input). */
    static int[] binaryTokens(byte[] body, IndexConfig config) {
        if (body == null || body.length % 4 != 0) {
            throw ApiException.badRequest("a " + TOKENS_BINARY + " body is little-endian int32 token ids: its "
                    + "length must be a multiple of 4 (got " + (body == null ? 0 : body.length) + " bytes)");
        }
        int count = body.length / 4;
        if (count > config.maxTokens()) {
            throw new ApiException(413, "TooManyTokens",
                    count + " tokens; at most " + config.maxTokens() + " (promptcache.index.max-tokens)");
        }
        int[] tokens = new int[count];
        ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(tokens);
        return tokens;
    }
}
