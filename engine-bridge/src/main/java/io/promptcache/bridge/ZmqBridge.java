package io.promptcache.bridge;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;
import org.zeromq.ZMsg;

import io.promptcache.schema.key.BackendId;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * Subscribes to one vLLM engine's KV-event socket ({@code --kv-events-config} {@code endpoint}, a ZMQ PUB) and
 * produces its events to {@code engine-events}, keyed by the backend id (so one engine's events stay in order in
 * one partition). vLLM sends multipart messages {@code [topic, seq (8 bytes, big-endian), payload]}. A frame that
 * cannot be decoded is logged and counted, never fatal; a gap in {@code seq} is logged and counted (the router
 * counts it too and goes on). vLLM's replay socket is not used.
 */
public final class ZmqBridge implements Runnable, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZmqBridge.class);

    private final String endpoint;
    private final String topic;
    private final BridgeSettings settings;
    private final Producer<byte[], byte[]> producer;
    private final String kafkaTopic;
    private final AtomicLong batches = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong unreadable = new AtomicLong();
    private final AtomicLong gaps = new AtomicLong();
    private volatile boolean running = true;
    private long lastSeq = -1;

    public ZmqBridge(String endpoint, String topic, BridgeSettings settings, Producer<byte[], byte[]> producer,
            TopicCatalog catalog) {
        this.endpoint = endpoint;
        this.topic = topic;
        this.settings = settings;
        this.producer = producer;
        this.kafkaTopic = catalog.name(Topics.ENGINE_EVENTS);
    }

    @Override
    public void run() {
        try (ZContext context = new ZContext()) {
            ZMQ.Socket sub = context.createSocket(SocketType.SUB);
            sub.setReceiveTimeOut(200);
            sub.connect(endpoint);
            sub.subscribe(topic.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            LOG.info("Bridging {} (topic \"{}\") of backend {} to {}", endpoint, topic, settings.backendId(),
                    kafkaTopic);
            while (running) {
                ZMsg message = ZMsg.recvMsg(sub);
                if (message != null) {
                    handle(message);
                }
            }
        } finally {
            producer.close(java.time.Duration.ofSeconds(10));
        }
    }

    void handle(ZMsg message) {
        if (message.size() < 2) {
            unreadable.incrementAndGet();
            LOG.warn("A frame of {} parts, expected [topic, seq, payload]: skipped", message.size());
            return;
        }
        byte[] payload = message.pollLast().getData();
        byte[] seqBytes = message.pollLast().getData();
        long seq = seqBytes.length == 8 ? ByteBuffer.wrap(seqBytes).getLong() : -1;
        if (lastSeq >= 0 && seq > lastSeq + 1) {
            gaps.incrementAndGet();
            LOG.warn("Missed {} batches of {} (seq {} -> {})", seq - lastSeq - 1, settings.backendId(), lastSeq, seq);
        }
        lastSeq = seq;
        List<EngineEvent> decoded;
        try {
            decoded = VllmFrames.decode(payload, Math.max(0, seq), settings);
        } catch (java.io.IOException | RuntimeException e) {
            unreadable.incrementAndGet();
            LOG.warn("An unreadable KV-event batch (seq {}) of {}: {}", seq, settings.backendId(), e.getMessage());
            return;
        }
        BackendId key = new BackendId(settings.backendId());
        for (EngineEvent event : decoded) {
            producer.send(new ProducerRecord<>(kafkaTopic, Topics.ENGINE_EVENTS.keySerde().serializer()
                    .serialize(kafkaTopic, key),
                    Topics.ENGINE_EVENTS.valueSerde().serializer()
                            .serialize(kafkaTopic, event)),
                    (metadata, e) -> {
                        if (e != null) {
                            LOG.warn("An event of {} was not produced: {}", settings.backendId(),
                                    e.getMessage());
                        }
                    });
        }
        batches.incrementAndGet();
        events.addAndGet(decoded.size());
    }

    public long batches() {
        return batches.get();
    }

    public long events() {
        return events.get();
    }

    public long unreadable() {
        return unreadable.get();
    }

    public long gaps() {
        return gaps.get();
    }

    /**
     * Stops the loop (within 200 ms); the loop then closes the producer, waiting at most 10 s for what it still
     * holds.
     */
    @Override
    public void close() {
        running = false;
    }
}
