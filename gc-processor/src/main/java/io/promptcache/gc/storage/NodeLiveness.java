package io.promptcache.gc.storage;

import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;

/**
 * How the GC reads a node's heartbeats: LIVE while the last one is younger than {@code livenessIntervals}
 * heartbeat intervals (and the node says UP or DRAINING), LOST once it is older than {@code lostAfterMs} (or the
 * node never sent one, or left for good), SILENT in between (a restart, a hiccup: deletes on it wait).
 */
public record NodeLiveness(int livenessIntervals, long lostAfterMs) {

    public enum Verdict {
        LIVE,
        SILENT,
        LOST
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
        return serving && !status.getEndpoint().isEmpty() && age <= livenessIntervals * interval
                ? Verdict.LIVE
                : Verdict.SILENT;
    }
}
