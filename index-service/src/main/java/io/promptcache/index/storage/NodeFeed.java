package io.promptcache.index.storage;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TopicReader;
import io.promptcache.schema.deadletter.DeadLetterPublisher;
import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.node.RetiringObjects;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.topic.Topics;
import io.quarkus.runtime.StartupEvent;

/**
 * Every storage node's last heartbeat, read from {@code nodes} by a consumer of its own (a handful of records a
 * second), not by the global stores' thread: that thread also applies {@code prefixes}, and a heartbeat queued
 * behind a backlog of prefix records made a node that was up and heartbeating look silent ("0 live") for as long as
 * the backlog lasted (docs/architecture.md, "Node liveness"). Read from the topic's beginning at start (compacted:
 * one record per node), so a restarted replica knows its nodes within a second of connecting, before its global
 * stores are restored. A null value forgets the node; an unreadable record goes to {@code dead-letters}. The objects a
 * node lists as retiring are remembered for {@link #RETIRING_KEPT_MS} after it last listed them: they are not served
 * (docs/architecture.md, "Retiring").
 */
@ApplicationScoped
public class NodeFeed {

    /** How long a retiring object is remembered after its node last listed it (its deletion and tombstone follow). */
    static final long RETIRING_KEPT_MS = 10 * 60_000;

    private final Map<String, NodeStatus> nodes = new ConcurrentHashMap<>();
    /** Node id -> {@code bucket/key} of its retiring objects -> when last listed (this replica's clock). */
    private final Map<String, Map<String, Long>> retiring = new ConcurrentHashMap<>();
    private final LongAdder unreadable = new LongAdder();
    private final KafkaProducers producers;
    private final TopicReader reader;
    private DeadLetterPublisher deadLetters;

    NodeFeed(KafkaProducers producers, MeterRegistry registry) {
        this.producers = producers;
        this.reader = new TopicReader(producers, producers.catalog().name(Topics.NODES), "node-feed", 500,
                this::apply);
        FunctionCounter.builder("promptcache.node.feed.unreadable", unreadable, LongAdder::sum)
                .description("Records on nodes that could not be decoded (sent to dead-letters)").register(registry);
    }

    void start(@Observes StartupEvent event) {
        deadLetters = new DeadLetterPublisher(producers.plain(), producers.catalog(), producers.instanceId());
        reader.start();
    }

    /** The node's last heartbeat, or null if it never sent one (or was forgotten). */
    public NodeStatus node(String nodeId) {
        return nodes.get(nodeId);
    }

    /** Every known node's last heartbeat. */
    public List<NodeStatus> nodes() {
        return List.copyOf(nodes.values());
    }

    /**
     * Whether {@code nodeId} listed {@code bucket/key} as retiring in a heartbeat read within {@link #RETIRING_KEPT_MS}
     * of its latest (what is older goes as each heartbeat of that node is read).
     */
    public boolean retiring(String nodeId, String bucket, String key) {
        Map<String, Long> listed = retiring.get(nodeId);
        return listed != null && !listed.isEmpty() && listed.containsKey(RetiringObjects.name(bucket, key));
    }

    /** Read the topic up to where it ended at start: every node that had sent a heartbeat is known. */
    public boolean caughtUp() {
        return reader.caughtUp();
    }

    /** The reader of {@code nodes} ended while the replica runs: no heartbeat is read any more. */
    public boolean readerStoppedForGood() {
        return reader.stoppedForGood();
    }

    private void apply(ConsumerRecord<byte[], byte[]> r) {
        NodeId id;
        NodeStatus status;
        try {
            id = Topics.NODES.keySerde().deserializer().deserialize(r.topic(), r.key());
            status = Topics.NODES.valueSerde().deserializer().deserialize(r.topic(), r.value());
        } catch (RuntimeException e) {
            unreadable.increment();
            deadLetters.publish(r, e);
            return;
        }
        if (id == null) {
            return;
        }
        if (status == null) {
            nodes.remove(id.value());
            retiring.remove(id.value());
        } else {
            nodes.put(id.value(), status);
            remember(id.value(), status, System.currentTimeMillis());
        }
    }

    private void remember(String nodeId, NodeStatus status, long nowMs) {
        Map<String, Long> listed = retiring.get(nodeId);
        if (listed == null) {
            if (status.getRetiringCount() == 0) {
                return;
            }
            listed = retiring.computeIfAbsent(nodeId, n -> new ConcurrentHashMap<>());
        }
        for (String name : status.getRetiringList()) {
            listed.put(name, nowMs);
        }
        listed.values().removeIf(seen -> nowMs - seen > RETIRING_KEPT_MS);
    }

    @PreDestroy
    void stop() {
        reader.stop();
    }
}
