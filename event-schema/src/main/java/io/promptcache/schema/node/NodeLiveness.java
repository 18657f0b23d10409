package io.promptcache.schema.node;

import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;

/**
 * The one rule for reading a storage node's heartbeats, used by index-service and gc-processor alike. A node is
 * LIVE while its last heartbeat is younger than {@code livenessIntervals} of its own heartbeat intervals, it has an
 * endpoint and it says UP or DRAINING (a draining node still serves reads and deletes, but takes no new objects:
 * {@link #takesWrites}); LOST once the heartbeat is older than {@code lostAfterMs} (or the node never sent one);
 * SILENT in between (a restart, a hiccup, or an announced DOWN: its objects are not served, deletes on it wait).
 *
 * @param livenessIntervals heartbeat intervals a node may be silent and still be live
 * @param lostAfterMs silence after which a node is given up (its objects are forgotten)
 */
public record NodeLiveness(int livenessIntervals, long lostAfterMs) {

    public enum Verdict {
        LIVE,
        SILENT,
        LOST
    }

    public NodeLiveness {
        if (livenessIntervals < 1) {
            throw new IllegalArgumentException("livenessIntervals must be at least 1, got " + livenessIntervals);
        }
    }

    /** For a reader that never gives a node up (index-service: LIVE or not is all it asks). */
    public static NodeLiveness ofIntervals(int livenessIntervals) {
        return new NodeLiveness(livenessIntervals, Long.MAX_VALUE);
    }

    public Verdict of(NodeStatus status, long now) {
        if (status == null) {
            return Verdict.LOST;
        }
        long age = now - status.getHeartbeatAtMs();
        if (age > lostAfterMs) {
            return Verdict.LOST;
        }
        boolean serving = status.getState() == NodeState.NODE_STATE_UP
                || status.getState() == NodeState.NODE_STATE_DRAINING;
        long interval = Math.max(1, status.getHeartbeatIntervalMs());
        return serving && !status.getEndpoint().isEmpty() && age <= (long) livenessIntervals * interval
                ? Verdict.LIVE
                : Verdict.SILENT;
    }

    /** LIVE: its objects are served (lookups hit them, loads GET them). */
    public boolean serves(NodeStatus status, long now) {
        return of(status, now) == Verdict.LIVE;
    }

    /** LIVE and UP: a new object (a whole one, or a continuation of one of its objects) may go there. */
    public boolean takesWrites(NodeStatus status, long now) {
        return serves(status, now) && status.getState() == NodeState.NODE_STATE_UP;
    }
}
