package io.promptcache.index.api;

import java.util.Locale;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiError;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiErrors;
import io.promptcache.index.error.ApiException;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * First on every {@code /v1/} request, before its body is read: a declared body (Content-Length) larger than the
 * endpoint accepts ({@link RequestLimits}) is answered 413 at once, a Content-Type that is no media type 415, and a
 * body that stalls (no byte for {@code promptcache.index.body-idle-timeout}) has its connection closed (a lookup is
 * answered 408 first; a REST resource's read fails and its answer goes nowhere, because Quarkus REST cannot be told
 * that another handler answered), so a slow client cannot hold a request open. The lookup route checks its own, tighter limits (with messages naming them).
 */
@ApplicationScoped
public class RequestGuard {

    /** {@code type/subtype}, then parameters: what Quarkus REST parses without failing. */
    private static final Pattern MEDIA_TYPE = Pattern.compile("\\s*[\\w.+!#$&^-]+/[\\w.+!#$&^-]+\\s*(;.*)?",
            Pattern.DOTALL);

    private final RequestLimits limits;
    private final IndexConfig config;
    private final ObjectWriter errors;
    private final long idleMillis;

    RequestGuard(IndexConfig config, ObjectMapper mapper) {
        this.limits = new RequestLimits(config);
        this.config = config;
        this.errors = mapper.writerFor(ApiError.class);
        this.idleMillis = Math.max(1, config.bodyIdleTimeout().toMillis());
    }

    void register(@Observes Router router) {
        router.route("/v1/*").order(Integer.MIN_VALUE).handler(this::guard);
    }

    private void guard(RoutingContext context) {
        HttpServerRequest request = context.request();
        boolean lookup = lookup(request); // the lookup route checks its own type and length, for less
        String type = request.getHeader(HttpHeaders.CONTENT_TYPE);
        if (!lookup && type != null && !MEDIA_TYPE.matcher(type).matches()) {
            reject(context, new ApiException(ApiErrorCode.UNSUPPORTED_MEDIA_TYPE, "Content-Type is not a media "
                    + "type (type/subtype[; parameters]): \"" + type + "\""));
            return;
        }
        if (request.isEnded()) {
            context.next();
            return;
        }
        String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        long declared = -1;
        if (length != null && !lookup) {
            long limit = limit(request);
            try {
                declared = Long.parseLong(length.trim());
            } catch (NumberFormatException e) {
                reject(context, ApiException.badRequest("Content-Length is not a number: " + length));
                return;
            }
            if (declared > limit) {
                reject(context, new ApiException(ApiErrorCode.TOO_LARGE, "this request's body is at most " + limit
                        + " bytes (from promptcache.index.max-tokens, max-block-hashes and"
                        + " store.max-object-bytes); Content-Length says " + declared));
                return;
            }
        }
        new StallWatch(context.vertx(), context, declared).arm();
        context.next();
    }

    private void reject(RoutingContext context, ApiException error) {
        Replies.error(context, ApiErrors.render(error, config.retryAfter()), errors);
    }

    private static boolean lookup(HttpServerRequest request) {
        String path = request.path();
        return request.method() == HttpMethod.POST && path.startsWith("/v1/namespaces/") && path.endsWith("/lookup")
                && path.chars().filter(c -> c == '/').count() == 4;
    }

    private long limit(HttpServerRequest request) {
        String path = request.path();
        if (request.method() == HttpMethod.POST && path.startsWith("/v1/namespaces/") && path.endsWith("/objects")
                && path.chars().filter(c -> c == '/').count() == 4) {
            return limits.oneShotStore();
        }
        return limits.json();
    }

    /**
     * Cuts a request off when its body has not grown for the idle timeout while bytes are still due: a lookup is
     * answered 408 (with Connection: close), a REST request's connection is closed.
     */
    private final class StallWatch {

        private final Vertx vertx;
        private final RoutingContext context;
        private final long declared;
        private long timer;
        private long bytesRead;
        private boolean done;

        /** @param declared the Content-Length, or -1 (then any pause of the body counts) */
        StallWatch(Vertx vertx, RoutingContext context, long declared) {
            this.vertx = vertx;
            this.context = context;
            this.declared = declared;
        }

        void arm() {
            bytesRead = context.request().bytesRead();
            timer = vertx.setTimer(idleMillis, id -> check());
            context.addEndHandler(end -> {
                done = true;
                vertx.cancelTimer(timer);
            });
        }

        private void check() {
            HttpServerRequest request = context.request();
            if (done || request.isEnded() || context.response().ended() || context.response().closed()) {
                return;
            }
            long read = request.bytesRead();
            if (declared >= 0 && read >= declared) {
                return; // every byte is in: whatever takes time now is this service's, not the client's
            }
            if (read != bytesRead) {
                bytesRead = read;
                timer = vertx.setTimer(idleMillis, id -> check());
                return;
            }
            if (!lookup(request)) {
                // Quarkus REST owns this body: closing fails its read (answered 400 to a closed connection)
                request.connection().close();
                return;
            }
            reject(context, new ApiException(ApiErrorCode.REQUEST_TIMEOUT, "the request body stalled: no byte for "
                    + config.bodyIdleTimeout().toString().substring(2).toLowerCase(Locale.ROOT) + " after " + read
                    + " bytes (promptcache.index.body-idle-timeout); the connection is closed"));
        }
    }
}
