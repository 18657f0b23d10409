package io.promptcache.index.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

import jakarta.enterprise.context.ApplicationScoped;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.node.NodeLiveness;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.proto.ObjectRecord;

/**
 * The storage nodes as their heartbeats on {@code nodes} describe them ({@link NodeFeed}: a reader of its own, never
 * queued behind prefix records), judged by event-schema's {@link NodeLiveness}
 * (the rule gc-processor uses too): a LIVE node (UP or DRAINING, heartbeat younger than
 * {@code promptcache.index.storage.liveness-intervals} intervals) has its objects served; only an UP one takes new
 * objects. Heartbeats are judged at {@link NodeLiveness#judgedAt}: when they all stop at once, as of the last one,
 * for at most {@code promptcache.index.storage.feed-stall-tolerance}; a node is then live only if it also answers
 * {@link NodeProbes a probe}. So lookups keep hitting through a broker outage, and a node that died (the only one
 * heartbeating, say) still turns silent within its heartbeat window. External S3 endpoints
 * ({@link ExternalEndpoints}) are judged the same way, by their probes' "heartbeats", at this replica's own clock
 * (their probes never stall with the feed); a configured endpoint's id shadows a heartbeating node of the same id.
 */
@ApplicationScoped
public class NodeDirectory {

    /** How long the moment to judge at is reused (it scans every heartbeat; lookups ask per hit). */
    private static final long JUDGED_AT_REUSE_MS = 200;

    private final NodeFeed feed;
    private final ExternalEndpoints externals;
    private final NodeProbes probes;
    private final NodeLiveness liveness;
    private final long stallToleranceMs;
    private final LongAdder retiringSkipped = new LongAdder();
    /** {@code now - judgedAt} as of {@link #offsetAtMs}: how far back heartbeats are judged. */
    private volatile long offsetMs;
    private volatile long offsetAtMs;

    NodeDirectory(NodeFeed feed, ExternalEndpoints externals, NodeProbes probes, IndexConfig config,
            MeterRegistry registry) {
        this.feed = feed;
        this.externals = externals;
        this.probes = probes;
        this.liveness = NodeLiveness.ofIntervals(config.storage().livenessIntervals());
        this.stallToleranceMs = config.storage().feedStallTolerance().toMillis();
        FunctionCounter.builder("promptcache.lookup.retiring.skipped", retiringSkipped, LongAdder::sum)
                .description("Copies of objects not served because their node listed them as retiring (about to "
                        + "delete them)")
                .register(registry);
    }

    /** The node of that id if it is LIVE now (its objects may be read), else null. */
    public NodeStatus serving(String nodeId) {
        NodeStatus external = externals.node(nodeId);
        if (external != null) {
            return liveness.serves(external, System.currentTimeMillis()) ? external : null;
        }
        NodeStatus node = feed.node(nodeId);
        return node != null && liveness.serves(node, judgedAt()) && answersWhileStalled(node) ? node : null;
    }

    /**
     * The first copy of {@code object} on a LIVE node (its record lists them in rendezvous order), or null if none
     * is: where its bytes are read.
     */
    public NodeStatus servingCopy(ObjectRecord object) {
        for (String nodeId : object.getNodesList()) {
            NodeStatus node = serving(object, nodeId);
            if (node != null) {
                return node;
            }
        }
        return null;
    }

    /** Every copy of {@code object} on a LIVE node, in the record's order (the first is {@link #servingCopy}). */
    public List<NodeStatus> servingCopies(ObjectRecord object) {
        List<NodeStatus> copies = new ArrayList<>(object.getNodesCount());
        for (String nodeId : object.getNodesList()) {
            NodeStatus node = serving(object, nodeId);
            if (node != null) {
                copies.add(node);
            }
        }
        return copies;
    }

    /**
     * The node of that id if it is LIVE now and serves its copy of {@code object}: not one the node listed as
     * retiring (about to delete it: docs/architecture.md, "Retiring"), else null.
     */
    public NodeStatus serving(ObjectRecord object, String nodeId) {
        NodeStatus node = serving(nodeId);
        if (node != null && feed.retiring(nodeId, object.getBucket(), object.getKey())) {
            retiringSkipped.increment();
            return null;
        }
        return node;
    }

    /** Whether a new object may go to {@code node} now (LIVE and UP). */
    public boolean takesWrites(NodeStatus node) {
        if (node.hasExternal()) {
            return liveness.takesWrites(node, System.currentTimeMillis());
        }
        return liveness.takesWrites(node, judgedAt()) && answersWhileStalled(node);
    }

    /** True unless the heartbeats stalled (judged in the past) and the node does not answer its probe. */
    private boolean answersWhileStalled(NodeStatus node) {
        return offsetMs <= 0 || probes.answers(node);
    }

    /** The moment heartbeats are judged at now ({@link NodeLiveness#judgedAt}), recomputed every 200 ms. */
    private long judgedAt() {
        long now = System.currentTimeMillis();
        if (now - offsetAtMs > JUDGED_AT_REUSE_MS || now < offsetAtMs) {
            offsetMs = now - liveness.judgedAt(feed.nodes(), now, stallToleranceMs);
            offsetAtMs = now;
        }
        return now - offsetMs;
    }

    /** The known node of that id, live or not; null if it never sent a heartbeat. */
    public NodeStatus known(String nodeId) {
        NodeStatus external = externals.node(nodeId);
        return external != null ? external : feed.node(nodeId);
    }

    /** A node and how this replica judges it now. */
    public record Judged(NodeStatus node, boolean serves, boolean takesWrites) {
    }

    /**
     * Every node this replica knows (a heartbeat read, or an external endpoint configured), judged now as
     * {@link #serving} and {@link #takesWrites} judge it: the operator's view of "0 live".
     */
    public List<Judged> judged() {
        List<Judged> judged = new ArrayList<>();
        for (NodeStatus node : feed.nodes()) {
            if (externals.node(node.getNodeId()) == null) {
                judged.add(new Judged(node, serving(node.getNodeId()) != null, takesWrites(node)));
            }
        }
        for (NodeStatus external : externals.nodes()) {
            judged.add(new Judged(external, serving(external.getNodeId()) != null, takesWrites(external)));
        }
        return judged;
    }

    /** The nodes that take new objects now. */
    public List<NodeStatus> writable() {
        long now = judgedAt();
        List<NodeStatus> writable = new ArrayList<>();
        for (NodeStatus node : feed.nodes()) {
            if (externals.node(node.getNodeId()) == null && liveness.takesWrites(node, now)
                    && answersWhileStalled(node)) {
                writable.add(node);
            }
        }
        long clock = System.currentTimeMillis();
        for (NodeStatus external : externals.nodes()) {
            if (liveness.takesWrites(external, clock)) {
                writable.add(external);
            }
        }
        return writable;
    }
}
