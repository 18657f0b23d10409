package io.promptcache.schema.node;

import java.util.Collection;

import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;

/**
 * The one rule for reading a storage node's heartbeats, used by index-service and gc-processor alike. A node is
 * LIVE while its last heartbeat is younger than {@code livenessIntervals} of its own heartbeat intervals, it has an
 * endpoint and it says UP or DRAINING (a draining node still serves reads and deletes, but takes no new objects:
 * {@link #takesWrites}); LOST once the heartbeat is older than {@code lostAfterMs} (or the node never sent one);
 * SILENT in between (a restart, a hiccup, or an announced DOWN: its objects are not served, deletes on it wait).
 *
 * <p>Heartbeats arrive through Kafka, so a broker outage stops all of them at once: readers judge them at
 * {@link #judgedAt}, which tells such a stall from nodes going silent.
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
        return serving && !status.getEndpoint().isEmpty() && age <= window(status)
                ? Verdict.LIVE
                : Verdict.SILENT;
    }

    /**
     * The moment to judge the heartbeats of {@code nodes} (every known node) at. Normally {@code now}. When even the
     * newest heartbeat of any node is older than that node's liveness window, every node fell silent at once: far
     * more likely the feed stopped (the Kafka broker is down or out of reach) than every node at the same moment.
     * The heartbeats are then judged as of the newest one, so no node turns SILENT or LOST for the stall alone, but
     * never more than {@code stallToleranceMs} back from now: past that, a reader's own clock wins again (a cluster
     * whose nodes all really died is not served forever). {@link Long#MAX_VALUE}: a stall never makes a node
     * silent or lost.
     */
    public long judgedAt(Collection<NodeStatus> nodes, long now, long stallToleranceMs) {
        NodeStatus newest = null;
        for (NodeStatus node : nodes) {
            if (node != null && (newest == null || node.getHeartbeatAtMs() > newest.getHeartbeatAtMs())) {
                newest = node;
            }
        }
        if (newest == null) {
            return now;
        }
        long stall = now - newest.getHeartbeatAtMs();
        if (stall <= window(newest)) {
            return now;
        }
        return stall < stallToleranceMs ? newest.getHeartbeatAtMs() : now - stallToleranceMs;
    }

    private long window(NodeStatus status) {
        return (long) livenessIntervals * Math.max(1, status.getHeartbeatIntervalMs());
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
