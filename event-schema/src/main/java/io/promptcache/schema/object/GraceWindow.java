package io.promptcache.schema.object;

import java.time.Duration;

/**
 * The grace window, one setting every service reads ({@value #KEY}, default {@value #DEFAULT}) and checks alike at
 * start: how long a tombstoned object's bytes stay readable before their delete - the index writes it into the
 * tombstones of its deletes, the gc-processor into those of its evictions and waits it out before deleting - and how
 * long a storage node's own object must have gone unused before the node deletes it to make room (its stand-in for
 * "not answered by a lookup within the window"). Kept apart, a GC window shorter than the node's self-eviction age left
 * the node refusing writes (507) while it held objects the GC had already let go.
 */
public final class GraceWindow {

    /** The setting's name in every service's configuration. */
    public static final String KEY = "promptcache.grace";
    /** Its default (MicroProfile Config's duration format). */
    public static final String DEFAULT = "30s";

    private GraceWindow() {
    }

    /**
     * {@code window} if it is a grace window (positive); otherwise the reason, naming the setting, for the service to
     * refuse to start with.
     */
    public static Duration check(Duration window) {
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException(KEY + " (the grace window) must be positive, got " + window);
        }
        return window;
    }
}
