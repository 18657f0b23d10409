package io.promptcache.index.api;

import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;

import io.promptcache.index.error.ApiErrors;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/** JSON answers written straight to Vert.x, for the routes that run before Quarkus REST. */
final class Replies {

    private Replies() {
    }

    /**
     * Sends {@code json} unless a response already went out; with {@code Connection: close} when the request body
     * was not read to its end (the rest of it is never read).
     */
    static void json(RoutingContext context, int status, byte[] json, Map<String, String> headers) {
        HttpServerResponse response = context.response();
        if (response.ended() || response.closed() || response.headWritten()) {
            return;
        }
        response.setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json");
        headers.forEach(response::putHeader);
        if (!context.request().isEnded()) {
            response.putHeader(HttpHeaders.CONNECTION, "close");
        }
        response.end(Buffer.buffer(json));
    }

    /** Sends a rendered error ({@link ApiErrors}). */
    static void error(RoutingContext context, ApiErrors.Rendered error, ObjectWriter errors) {
        try {
            json(context, error.status(), errors.writeValueAsBytes(error.body()), error.headers());
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an ApiError always serializes", e);
        }
    }
}
