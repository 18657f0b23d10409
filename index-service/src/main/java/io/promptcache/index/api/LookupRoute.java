package io.promptcache.index.api;

import java.io.IOException;
import java.util.Locale;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiError;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiErrors;
import io.promptcache.index.error.ApiException;
import io.promptcache.index.lookup.LookupService;
import io.promptcache.index.lookup.Prefixes;
import io.promptcache.index.metrics.IndexMetrics;
import io.promptcache.index.namespace.Namespace;
import io.promptcache.index.namespace.NamespaceRegistry;
import io.promptcache.index.tenancy.Tenancy;
import io.promptcache.schema.key.PrefixChain;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * Lookup, {@code POST /v1/namespaces/{namespace}/lookup}: the longest cached prefix, decided from this replica's
 * memory. A Vert.x route on the event loop rather than a REST resource, because it is the hot path: the body is
 * gathered into one array and hashed from there (the binary form is never decoded into token ids), and nothing
 * else stands between the socket and the lookup. JSON ({@code tokens} or {@code blockHashes}) or the binary form
 * ({@link #TOKENS_BINARY}); documented in {@code META-INF/openapi.yaml}. Errors are the API's usual
 * {@link ApiError} bodies; one found before the body is read closes the connection (the rest of the body is never
 * read). A client that sends {@code Expect: 100-continue} (curl does, for bodies over 1 KiB) gets its
 * {@code 100 Continue} once the namespace, key and declared size are accepted, and its error without sending the
 * body otherwise.
 *
 * <p>Server-side latency, {@code promptcache_lookup_seconds{outcome}}: from this handler receiving the request
 * (headers parsed, body not yet read) to the response handed to Vert.x. {@code promptcache_lookup_handler_seconds}:
 * from the body decoded (JSON parsed; the binary form as received) to the answer ready.
 */
@ApplicationScoped
public class LookupRoute {

    /** Binary request: the token ids as little-endian int32, nothing else. */
    public static final String TOKENS_BINARY = "application/vnd.promptcache.tokens";
    static final String PATH = "/v1/namespaces/:namespace/lookup";
    private static final String JSON = "application/json";
    private final LookupService lookup;
    private final NamespaceRegistry namespaces;
    private final Tenancy tenancy;
    private final IndexConfig config;
    private final IndexMetrics metrics;
    private final ObjectReader requests;
    private final ObjectWriter answers;
    private final ObjectWriter errors;
    private final RequestLimits limits;

    LookupRoute(LookupService lookup, NamespaceRegistry namespaces, Tenancy tenancy, IndexConfig config,
            IndexMetrics metrics, ObjectMapper mapper) {
        this.lookup = lookup;
        this.namespaces = namespaces;
        this.tenancy = tenancy;
        this.config = config;
        this.metrics = metrics;
        this.requests = mapper.readerFor(PrefixInput.class);
        this.answers = mapper.writerFor(LookupResponse.class);
        this.errors = mapper.writerFor(ApiError.class);
        this.limits = new RequestLimits(config);
    }

    void register(@Observes Router router) {
        router.post(PATH).order(Integer.MIN_VALUE / 2).handler(this::lookup);
        router.route(PATH).order(Integer.MIN_VALUE / 2 + 1).handler(context -> {
            context.response().putHeader(HttpHeaders.ALLOW, "POST");
            fail(context, System.nanoTime(),
                    new ApiException(ApiErrorCode.METHOD_NOT_ALLOWED, "a lookup is a POST of the "
                            + "tokens ({\"tokens\": [...]}) or the binary form " + TOKENS_BINARY));
        });
    }

    private void lookup(RoutingContext context) {
        long start = System.nanoTime();
        HttpServerRequest request = context.request();
        try {
            boolean binary = binary(request.getHeader(HttpHeaders.CONTENT_TYPE));
            long limit = binary ? limits.lookupBinary() : limits.lookupJson();
            long declared = declaredLength(request.getHeader(HttpHeaders.CONTENT_LENGTH));
            if (declared > limit) {
                throw tooLarge(binary, declared, limit);
            }
            Namespace spec = namespaces.require(tenancy.caller(request.getHeader(HttpHeaders.AUTHORIZATION),
                    request.getHeader(Tenancy.API_KEY_HEADER)), context.pathParam("namespace"));
            RequestBody body = new RequestBody(limit, declared);
            if (request.isEnded()) {
                answer(context, start, spec, binary, body);
                return;
            }
            if ("100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT))) {
                context.response().writeContinue();
            }
            boolean[] failed = new boolean[1];
            request.handler(chunk -> {
                if (!failed[0] && !body.append(chunk)) {
                    failed[0] = true;
                    fail(context, start, tooLarge(binary, body.length() + (long) chunk.length(), limit));
                }
            });
            request.exceptionHandler(e -> failed[0] = true);
            request.endHandler(end -> {
                if (!failed[0]) {
                    answer(context, start, spec, binary, body);
                }
            });
        } catch (RuntimeException e) {
            fail(context, start, e);
        }
    }

    private void answer(RoutingContext context, long start, Namespace spec, boolean binary, RequestBody body) {
        try {
            PrefixInput json = binary ? null : parse(body);
            long decoded = System.nanoTime();
            PrefixChain chain = binary
                    ? Prefixes.binaryChain(spec, body.array(), body.length(), config, "a binary token body")
                    : json.chain(spec, config);
            LookupResponse response = LookupResponse.of(lookup.lookup(spec, chain));
            metrics.lookupHandler(System.nanoTime() - decoded);
            Replies.json(context, 200, answers.writeValueAsBytes(response), Map.of());
            metrics.lookupLatency(response.hit() ? "hit" : "miss", System.nanoTime() - start);
        } catch (RuntimeException | JsonProcessingException e) {
            fail(context, start, e);
        }
    }

    private PrefixInput parse(RequestBody body) throws JsonProcessingException {
        if (body.length() == 0) {
            throw ApiException.badRequest("send {\"tokens\": [...]} or {\"blockHashes\": [...]}");
        }
        try {
            return requests.readValue(body.array(), 0, body.length());
        } catch (JsonProcessingException e) {
            throw e;
        } catch (IOException e) {
            throw new IllegalStateException("reading an in-memory body", e);
        }
    }

    private void fail(RoutingContext context, long start, Throwable failure) {
        Replies.error(context, ApiErrors.render(failure, config.retryAfter()), errors);
        metrics.lookupLatency("error", System.nanoTime() - start);
    }

    /** Whether the content type is the binary form; 415 unless it is that or JSON. */
    private static boolean binary(String contentType) {
        String type = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (type.equals(TOKENS_BINARY)) {
            return true;
        }
        if (type.equals(JSON)) {
            return false;
        }
        throw new ApiException(ApiErrorCode.UNSUPPORTED_MEDIA_TYPE,
                "a lookup body is " + JSON + " ({\"tokens\": [...]} or "
                        + "{\"blockHashes\": [...]}) or " + TOKENS_BINARY + " (little-endian int32 token ids); got "
                        + (contentType == null ? "no Content-Type" : contentType));
    }

    private static long declaredLength(String contentLength) {
        if (contentLength == null) {
            return -1;
        }
        try {
            return Long.parseLong(contentLength.trim());
        } catch (NumberFormatException e) {
            throw ApiException.badRequest("Content-Length is not a number: " + contentLength);
        }
    }

    private ApiException tooLarge(boolean binary, long bytes, long limit) {
        if (binary) {
            return Prefixes.tooManyTokens((bytes + 3) / 4, config);
        }
        return new ApiException(ApiErrorCode.TOO_LARGE, "a JSON lookup body is at most " + limit + " bytes (from "
                + "promptcache.index.max-tokens and max-block-hashes), got " + bytes + "; send fewer tokens, or the "
                + "binary form " + TOKENS_BINARY);
    }
}
