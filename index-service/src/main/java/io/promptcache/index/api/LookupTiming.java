package io.promptcache.index.api;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

import io.promptcache.index.metrics.IndexMetrics;

/**
 * Server-side lookup latency: from the request reaching the REST layer, before its body is read and parsed, to
 * the response entity being ready (so JSON or binary decoding, hashing and the search are all in it; the network
 * and writing the response are not). Recorded as {@code promptcache_lookup_seconds{outcome}}.
 */
public class LookupTiming {

    private static final String START = LookupTiming.class.getName() + ".start";

    private final IndexMetrics metrics;

    LookupTiming(IndexMetrics metrics) {
        this.metrics = metrics;
    }

    @ServerRequestFilter
    public void start(ContainerRequestContext request) {
        if (request.getUriInfo().getPath().endsWith("/lookup")) {
            request.setProperty(START, System.nanoTime());
        }
    }

    @ServerResponseFilter
    public void stop(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getProperty(START) instanceof Long start) {
            String outcome = response.getEntity() instanceof LookupResponse lookup
                    ? (lookup.hit() ? "hit" : "miss")
                    : "error";
            metrics.lookupLatency(outcome, System.nanoTime() - start);
        }
    }
}
