package io.promptcache.index.storage;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.proto.NodeStatus;
import io.quarkus.runtime.StartupEvent;

/**
 * The external S3 endpoints of the configuration ({@code promptcache.index.storage.external.*}), each judged by this
 * replica's own probe instead of heartbeats: a HEAD of its bucket every {@value ExternalNodes#PROBE_INTERVAL_MS} ms
 * (the bucket created first where the configuration says so). An answer makes it UP with a fresh "heartbeat"; a
 * refusal (403, a missing bucket, a refused connection) makes it DOWN at once, said once in the log with what to
 * fix; a probe that times out changes nothing, so an endpoint that stops answering turns silent after the usual
 * liveness window (event-schema {@code NodeLiveness}), as a node whose heartbeats stop does. Wrong credentials or a
 * missing bucket never stop the service: it starts, stores answer 503 {@code NoStorageNode}, and the endpoint is UP
 * at the first probe after the fix. Nothing is written anywhere: the configuration is the record.
 */
@ApplicationScoped
public class ExternalEndpoints {

    private static final Logger LOG = LoggerFactory.getLogger(ExternalEndpoints.class);

    private final NodeStorage storage;
    private final Map<String, NodeStatus> statuses = new ConcurrentHashMap<>();
    private final Map<String, String> problems = new ConcurrentHashMap<>();
    private ScheduledExecutorService prober;

    ExternalEndpoints(IndexConfig config, NodeStorage storage) {
        this.storage = storage;
        statuses.putAll(ExternalNodes.statuses(IndexConfig.EXTERNAL, config.storage().external(),
                config.store().bucket()));
    }

    void start(@Observes StartupEvent event) {
        if (statuses.isEmpty()) {
            return;
        }
        statuses.values().forEach(node -> LOG.info("External S3 endpoint {}: {} bucket {}, budget {} bytes, copy {}",
                node.getNodeId(), node.getEndpoint(), node.getExternal().getBucket(), node.getCapacityBytes(),
                node.getExternal().getCopy()));
        prober = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "external-endpoint-probes");
            thread.setDaemon(true);
            return thread;
        });
        prober.scheduleWithFixedDelay(this::probeAll, 0, ExternalNodes.PROBE_INTERVAL_MS, TimeUnit.MILLISECONDS);
    }

    /** The endpoint of that id as of its last probe, or null if none is configured so. */
    public NodeStatus node(String nodeId) {
        return statuses.get(nodeId);
    }

    /** Every configured endpoint as of its last probe. */
    public Collection<NodeStatus> nodes() {
        return statuses.isEmpty() ? List.of() : List.copyOf(statuses.values());
    }

    /** What is wrong with each endpoint its last probe refused (endpoint id -> what to fix); empty when none is. */
    public Map<String, String> problems() {
        return Map.copyOf(problems);
    }

    /** Probes every endpoint once: the scheduled round. */
    private void probeAll() {
        for (NodeStatus node : List.copyOf(statuses.values())) {
            probe(node);
        }
    }

    private void probe(NodeStatus node) {
        String id = node.getNodeId();
        try {
            storage.probe(node);
            statuses.put(id, ExternalNodes.probed(node, true, System.currentTimeMillis()));
            if (problems.remove(id) != null || node.getHeartbeatAtMs() == 0) {
                LOG.info("External S3 endpoint {} ({}) answers: stores may go there", id, node.getEndpoint());
            }
        } catch (StorageCallException e) {
            if (e.kind() == StorageCallException.Kind.TIMED_OUT) {
                return; // silent after the liveness window unless it answers again
            }
            statuses.put(id, ExternalNodes.probed(node, false, System.currentTimeMillis()));
            if (!e.getMessage().equals(problems.put(id, e.getMessage()))) {
                LOG.error("External S3 endpoint {} is down: {}", id, e.getMessage());
            }
        } catch (RuntimeException e) {
            statuses.put(id, ExternalNodes.probed(node, false, System.currentTimeMillis()));
            if (problems.put(id, String.valueOf(e)) == null) {
                LOG.error("External S3 endpoint {} is down: its probe failed", id, e);
            }
        }
    }

    @PreDestroy
    void stop() {
        if (prober != null) {
            prober.shutdownNow();
        }
    }
}
