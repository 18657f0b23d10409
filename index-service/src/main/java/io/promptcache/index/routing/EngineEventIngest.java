package io.promptcache.index.routing;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.jboss.logging.Logger;

import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.schema.deadletter.DeadLetterPublisher;
import io.promptcache.schema.proto.EngineEvent;
import io.promptcache.schema.topic.Topics;
import io.quarkus.runtime.StartupEvent;

/**
 * Every replica reads all of {@code engine-events} (no consumer group: each needs every backend's events), from the
 * start of the topic's retention, so a restarted replica rebuilds its trackers by replaying the log; it answers
 * route requests once it has read up to where the topic ended when it started. Unreadable records go to
 * {@code dead-letters}; the loop never stops for one.
 */
@ApplicationScoped
public class EngineEventIngest {

    private static final Logger LOG = Logger.getLogger(EngineEventIngest.class);

    private final Routing routing;
    private final RoutingMetrics metrics;
    private final KafkaProducers producers;
    private final AtomicLong applied = new AtomicLong();
    private volatile boolean running;
    private volatile boolean caughtUp;
    private volatile long replayMillis = -1;
    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private Thread thread;

    EngineEventIngest(Routing routing, RoutingMetrics metrics, KafkaProducers producers) {
        this.routing = routing;
        this.metrics = metrics;
        this.producers = producers;
    }

    void start(@Observes StartupEvent event) {
        if (!routing.config().enabled()) {
            LOG.info("Routing is off (promptcache.index.routing.enabled=false): engine-events are not read");
            return;
        }
        running = true;
        thread = new Thread(this::run, "engine-events");
        thread.setDaemon(true);
        thread.start();
    }

    /** Read up to where the topic ended at start: the trackers are complete. */
    public boolean caughtUp() {
        return caughtUp;
    }

    /** How long the start-up replay took, or -1 while it runs. */
    public long replayMillis() {
        return replayMillis;
    }

    /** Events read since start (applied or not). */
    public long read() {
        return applied.get();
    }

    private void run() {
        long started = System.nanoTime();
        String topic = producers.catalog().name(Topics.ENGINE_EVENTS);
        // on the shared producer, which KafkaProducers owns and closes: never closed here
        DeadLetterPublisher deadLetters = new DeadLetterPublisher(producers.plain(), producers.catalog(),
                producers.instanceId());
        try (KafkaConsumer<byte[], byte[]> c = producers.consumer(Map.of(
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.CLIENT_ID_CONFIG, "engine-events-" + producers.instanceId()))) {
            consumer = c;
            List<TopicPartition> partitions = partitions(c, topic);
            if (partitions.isEmpty()) {
                return;
            }
            c.assign(partitions);
            c.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = c.endOffsets(partitions);
            checkCaughtUp(c, end, started);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
                    handle(r, deadLetters);
                }
                if (!caughtUp) {
                    checkCaughtUp(c, end, started);
                }
            }
        } catch (WakeupException e) {
            // stopping
        } catch (RuntimeException e) {
            LOG.error("engine-events reader stopped: routing answers go stale", e);
        }
    }

    private List<TopicPartition> partitions(KafkaConsumer<byte[], byte[]> c, String topic) {
        while (running) {
            List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
            if (infos != null && !infos.isEmpty()) {
                return infos.stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            }
            LOG.warnf("Topic %s not found; routing waits for it", topic);
            sleep(Duration.ofSeconds(5));
        }
        return List.of();
    }

    private void checkCaughtUp(KafkaConsumer<byte[], byte[]> c, Map<TopicPartition, Long> end, long started) {
        if (end.entrySet().stream().allMatch(e -> c.position(e.getKey()) >= e.getValue())) {
            caughtUp = true;
            replayMillis = (System.nanoTime() - started) / 1_000_000;
            LOG.infof("Routing trackers rebuilt from engine-events: %d events in %d ms", applied.get(), replayMillis);
        }
    }

    private void handle(ConsumerRecord<byte[], byte[]> r, DeadLetterPublisher deadLetters) {
        applied.incrementAndGet();
        EngineEvent event;
        try {
            event = Topics.ENGINE_EVENTS.valueSerde().deserializer().deserialize(r.topic(), r.value());
        } catch (RuntimeException e) {
            metrics.unreadable();
            deadLetters.publish(r, e);
            return;
        }
        if (event == null) {
            return; // a null value: nothing to apply
        }
        if (caughtUp && event.getKindCase() == EngineEvent.KindCase.PREDICTED
                && producers.instanceId().equals(event.getPredicted().getDecidedBy())) {
            return; // this replica's own decision, applied when it was made
        }
        metrics.event(routing.applier().apply(event));
    }

    @PreDestroy
    void stop() {
        running = false;
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
