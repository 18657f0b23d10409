package io.promptcache.index.storage;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.node.NodeTrust;
import io.promptcache.schema.proto.NodeStatus;

/**
 * Asks storage nodes directly whether they are up ({@code GET <endpoint>/q/health/live}), for when their heartbeats
 * cannot tell: every heartbeat stopped at once, which a broker outage and the death of every node look alike in.
 * Never on a request's path: {@link #answers} returns the last answer and starts a new probe in the background when
 * that one is older than a second. A refused connection or an answer other than 200 means down at once (a dead
 * process); a probe that times out means down only after {@value #TIMEOUTS_TO_DOWN} in a row (a paused node, or a
 * machine too busy to answer within {@code 2 s}: one slow answer must not hide a live node's objects). An https node
 * is verified with the S3 client's trust ({@link NodeTrust}).
 */
@ApplicationScoped
public class NodeProbes {

    private static final Logger LOG = LoggerFactory.getLogger(NodeProbes.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final long FRESH_MS = 1_000;
    static final int TIMEOUTS_TO_DOWN = 3;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT)
            .sslContext(NodeTrust.context(name -> ConfigProvider.getConfig().getOptionalValue(name, String.class)))
            .build();
    private final Map<String, Probe> probes = new ConcurrentHashMap<>();

    /**
     * Whether the node answered its last probe (true until a first probe has answered: the heartbeats' verdict
     * stands meanwhile); probes it again when that answer is older than a second.
     */
    public boolean answers(NodeStatus node) {
        Probe probe = probes.computeIfAbsent(node.getNodeId(), id -> new Probe());
        if (System.currentTimeMillis() - probe.atMs > FRESH_MS && probe.inFlight.compareAndSet(false, true)) {
            send(node, probe);
        }
        return probe.answered;
    }

    private void send(NodeStatus node, Probe probe) {
        HttpRequest request;
        try {
            request = HttpRequest.newBuilder(URI.create(node.getEndpoint() + "/q/health/live")).timeout(TIMEOUT)
                    .GET().build();
        } catch (IllegalArgumentException e) {
            probe.done(false, false);
            return;
        }
        http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, failure) -> {
            boolean timedOut = failure != null && (failure instanceof HttpTimeoutException
                    || failure.getCause() instanceof HttpTimeoutException);
            boolean up = failure == null
                    ? response.statusCode() == 200
                    : timedOut && probe.timeouts + 1 < TIMEOUTS_TO_DOWN && probe.answered;
            if (up != probe.answered) {
                LOG.info("Storage node {} {} its probe (its heartbeats stopped with every other node's){}",
                        node.getNodeId(), up ? "answers" : "does not answer",
                        failure == null ? "" : ": " + failure);
            }
            probe.done(up, timedOut);
        });
    }

    /** The last probe of one node. */
    private static final class Probe {

        private final AtomicBoolean inFlight = new AtomicBoolean();
        private volatile long atMs = Long.MIN_VALUE / 2;
        private volatile boolean answered = true;
        /** Probes in a row that timed out. */
        private volatile int timeouts;

        void done(boolean up, boolean timedOut) {
            timeouts = timedOut ? timeouts + 1 : 0;
            answered = up;
            atMs = System.currentTimeMillis();
            inFlight.set(false);
        }
    }
}
