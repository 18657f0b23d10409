package io.promptcache.index.store;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

import io.promptcache.index.error.ApiException;

/**
 * Why an engine saves a prefix (seed 002's taxonomy), carried by a store request and counted by the store metrics
 * ({@code promptcache_store_seconds_count{reason, outcome}}). It changes nothing about how the object is stored: an
 * engine's connector decides when to save and whether to wait; the index only counts.
 */
public enum SaveReason {

    /** The prompt's prefill completed (asynchronous, off the request path). */
    COLD,
    /** Every {@code continued_interval} tokens of a long generation (asynchronous). */
    CONTINUED,
    /** The request finished: prompt and reply, so the next turn of a chat hits its whole history. */
    FINISH,
    /** The engine is about to reuse the request's pages (a preemption): saved before they are overwritten. */
    EVICT,
    /** The engine is stopping: best effort, capped by the connector's timeout. */
    SHUTDOWN,
    /** A store that named no reason (clients other than an engine connector). */
    UNSPECIFIED;

    private static final String NAMES = Arrays.stream(values()).filter(r -> r != UNSPECIFIED).map(SaveReason::tag)
            .collect(Collectors.joining(", "));

    /** The metric tag and wire name: lower case. */
    public String tag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The reason a request names ({@link #UNSPECIFIED} when absent); 400 for a name that is not one. */
    public static SaveReason parse(String name) {
        if (name == null) {
            return UNSPECIFIED;
        }
        for (SaveReason reason : values()) {
            if (reason != UNSPECIFIED && reason.tag().equals(name)) {
                return reason;
            }
        }
        throw ApiException.badRequest("reason must be one of " + NAMES + " (or absent); got \""
                + name + "\"");
    }
}
