package io.promptcache.storage.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.store.ObjectStore;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.smallrye.common.annotation.Identifier;

/**
 * Publishes this node's {@link NodeStatus} to the {@code nodes} topic every heartbeat interval, and a DOWN status
 * on shutdown; before each, the objects it deleted on its own since the last one, on {@code reclaims}
 * ({@link ReclaimSender}). Runs on its own thread with bounded blocking: the S3 path never waits for Kafka, and a broker that is
 * away only delays heartbeats (logged at WARN). Without any Kafka configuration the node is a plain S3 server:
 * heartbeats are off, said once at start.
 */
@ApplicationScoped
public class NodeHeartbeat {

    private static final Logger LOG = LoggerFactory.getLogger(NodeHeartbeat.class);
    private static final long NUDGE_MS = 50;
    /**
     * At least this long between a heartbeat and an extra one. The GC reads the nodes' latest heartbeats once a round
     * (1 s by default), so a faster pace buys nothing: a node short of room that nudged 50 ms after every reclaim
     * wrote ~1 MB/s to {@code nodes} (its heartbeats then listed the reclaims), which every index replica and the GC
     * read (docs/benchmarks.md, "Heartbeats at the GC's pace").
     */
    static final long NUDGE_GAP_MS = 250;

    private final ObjectStore store;
    private final StorageConfig config;
    private final Map<String, Object> kafkaConfig;
    private final String topic;
    private final String reclaimsTopic;
    private final NodeId nodeId;
    private ScheduledExecutorService timer;
    private KafkaProducer<NodeId, NodeStatus> producer;
    private ReclaimSender reclaims;
    private final DeliveryWarning warning;
    private volatile boolean delivered;
    private final AtomicBoolean nudged = new AtomicBoolean();
    /** When the last heartbeat was sent (wall clock, ms). */
    private volatile long publishedAtMs;
    /** The last {@link ObjectStore#reclaimableBytes()} and when it was computed (the heartbeat thread's only). */
    private long reclaimable;
    private long reclaimableAtMs = Long.MIN_VALUE / 2;

    NodeHeartbeat(ObjectStore store, StorageConfig config,
            @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig, TopicCatalog catalog) {
        this.store = store;
        this.config = config;
        this.kafkaConfig = kafkaConfig;
        this.topic = catalog.name(Topics.NODES);
        this.reclaimsTopic = catalog.name(Topics.RECLAIMS);
        this.nodeId = new NodeId(config.nodeId());
        this.warning = new DeliveryWarning("Heartbeats of node " + nodeId, "will keep trying");
    }

    void start(@Observes StartupEvent event) {
        if (!(config.retireAhead() >= 0 && config.retireAhead() < 1)) {
            throw new IllegalArgumentException("promptcache.storage.retire-ahead is a share of the capacity, from 0 "
                    + "(off) to below 1: " + config.retireAhead());
        }
        Object bootstrap = kafkaConfig.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
        if (bootstrap == null || bootstrap.toString().isBlank()) {
            LOG.warn("No Kafka configured (kafka.bootstrap.servers is unset): node {} serves S3 but publishes no "
                    + "heartbeats, so no index-service or gc-processor will use it", nodeId);
            return;
        }
        Map<String, Object> producerConfig = ClientSettings.producer(kafkaConfig);
        producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, "storage-node-heartbeat-" + nodeId);
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000);
        producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        producerConfig.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        producer = new KafkaProducer<>(producerConfig, Topics.NODES.keySerde().serializer(),
                Topics.NODES.valueSerde().serializer());
        producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, "storage-node-reclaims-" + nodeId);
        reclaims = new ReclaimSender(store.reclaimed(), reclaimsTopic, nodeId, producerConfig);
        timer = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "node-heartbeat"));
        long period = Math.max(100, config.heartbeatInterval().toMillis());
        timer.scheduleAtFixedRate(() -> publish(NodeState.NODE_STATE_UP), 0, period, TimeUnit.MILLISECONDS);
        store.reclaimed().onReclaimed(this::soon);
        LOG.info("Heartbeats of node {} to {} every {} ms, endpoint {}", nodeId, topic, period, endpoint());
    }

    /**
     * An extra heartbeat within {@value #NUDGE_MS} ms, and no sooner than {@value #NUDGE_GAP_MS} ms after the last
     * one (the reclaims in between go together): the GC learns of a reclaimed candidate, and of the room it made,
     * without waiting for the period, so lookups stop returning it sooner.
     */
    private void soon() {
        if (timer != null && nudged.compareAndSet(false, true)) {
            try {
                timer.schedule(() -> {
                    nudged.set(false);
                    publish(NodeState.NODE_STATE_UP);
                }, nudgeDelayMs(publishedAtMs, System.currentTimeMillis()), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // shutting down
            }
        }
    }

    /** How long after {@code nowMs} an extra heartbeat goes, the last one having gone at {@code publishedAtMs}. */
    static long nudgeDelayMs(long publishedAtMs, long nowMs) {
        long sinceLast = nowMs - publishedAtMs;
        return sinceLast < 0 ? NUDGE_GAP_MS : Math.max(NUDGE_MS, NUDGE_GAP_MS - sinceLast);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer == null) {
            return;
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (delivered) {
            // only when the broker was reachable: a DOWN that cannot be delivered would just delay shutdown
            publish(NodeState.NODE_STATE_DOWN);
        }
        reclaims.close();
        producer.close(Duration.ofSeconds(2));
    }

    /** The status this node publishes now. */
    NodeStatus status(NodeState state) {
        return status(state, store.retiring());
    }

    private NodeStatus status(NodeState state, List<String> retiring) {
        return NodeStatus.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNodeId(nodeId.value())
                .setEndpoint(endpoint()).setCapacityBytes(store.capacityBytes()).setUsedBytes(store.usedBytes())
                .setLogicalUsedBytes(store.logicalBytes()).setReclaimableBytes(reclaimableBytes())
                .setObjects(store.objectCount()).setState(state).setHeartbeatAtMs(System.currentTimeMillis())
                .setHeartbeatIntervalMs((int) config.heartbeatInterval().toMillis())
                .setRamCapacityBytes(store.tierStats().ramCapacityBytes())
                .setRamUsedBytes(store.tierStats().ramUsedBytes()).setRamHitRatio(store.tierStats().ramHitRatio())
                .setWriterQueueDepth(store.tierStats().writerQueueDepth())
                .setReclaimsOnDemand(store.options().reclaimOnDemand()).setPrefixPuts(config.prefixPuts())
                .addAllRetiring(retiring).build();
    }

    /**
     * {@link ObjectStore#reclaimableBytes()} at most once per heartbeat interval: it visits every marked object,
     * and a node short of room nudges a heartbeat for every candidate it reclaims (tens a second under load), which
     * made it a third of the node's CPU (when it also read each one's entry from the metadata store). The extra
     * heartbeats are for the reclaims sent before them; the reclaimable estimate of the periodic one serves
     * placement.
     */
    private long reclaimableBytes() {
        long now = System.currentTimeMillis();
        if (now - reclaimableAtMs >= config.heartbeatInterval().toMillis() || now < reclaimableAtMs) {
            reclaimable = store.reclaimableBytes();
            reclaimableAtMs = now;
        }
        return reclaimable;
    }

    private void publish(NodeState state) {
        publishedAtMs = System.currentTimeMillis();
        if (state == NodeState.NODE_STATE_UP) {
            retireAhead(); // before the reclaims go: the retired objects it deletes now are among them
        }
        reclaims.send();
        List<String> retiring = store.retiring();
        try {
            producer.send(new ProducerRecord<>(topic, nodeId, status(state, retiring)), (metadata, error) -> {
                if (error != null) {
                    warning.failed(error);
                } else {
                    warning.delivered();
                    delivered = true;
                    // the index replicas read it within a poll: these may be deleted a second from now
                    store.retiringAnnounced(retiring, System.currentTimeMillis());
                }
            });
        } catch (RuntimeException e) {
            warning.failed(e);
        }
    }

    /** {@link ObjectStore#retireAhead}; a failure is logged, never the end of the heartbeats. */
    private void retireAhead() {
        try {
            store.retireAhead((long) (config.retireAhead() * store.capacityBytes()), reclaimableBytes());
        } catch (RuntimeException e) {
            LOG.warn("Node {} could not retire objects ahead of need: {}", nodeId, e.toString(), e);
        }
    }

    private String endpoint() {
        return config.advertisedEndpoint().orElseGet(() -> {
            String portKey = LaunchMode.current() == LaunchMode.TEST ? "quarkus.http.test-port" : "quarkus.http.port";
            int port = ConfigProvider.getConfig().getOptionalValue(portKey, Integer.class).orElse(9000);
            return "http://127.0.0.1:" + port;
        });
    }
}
