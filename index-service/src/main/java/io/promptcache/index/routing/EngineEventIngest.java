package io.promptcache.index.routing;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.kafka.KafkaProducers;
import io.promptcache.index.kafka.TopicReader;
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

    private static final Logger LOG = LoggerFactory.getLogger(EngineEventIngest.class);

    private final Routing routing;
    private final RoutingMetrics metrics;
    private final KafkaProducers producers;
    private final TopicReader reader;
    // on the shared producer, which KafkaProducers owns and closes: never closed here
    private DeadLetterPublisher deadLetters;

    EngineEventIngest(Routing routing, RoutingMetrics metrics, KafkaProducers producers) {
        this.routing = routing;
        this.metrics = metrics;
        this.producers = producers;
        this.reader = new TopicReader(producers, producers.catalog().name(Topics.ENGINE_EVENTS), "engine-events",
                5000, this::handle);
    }

    void start(@Observes StartupEvent event) {
        if (!routing.config().enabled()) {
            LOG.info("Routing is off (promptcache.index.routing.enabled=false): engine-events are not read");
            return;
        }
        deadLetters = new DeadLetterPublisher(producers.plain(), producers.catalog(), producers.instanceId());
        reader.start();
    }

    /** Read up to where the topic ended at start: the trackers are complete. */
    public boolean caughtUp() {
        return reader.caughtUp();
    }

    /** How long the start-up replay took, or -1 while it runs. */
    public long replayMillis() {
        return reader.replayMillis();
    }

    /** Events read since start (applied or not). */
    public long read() {
        return reader.read();
    }

    private void handle(ConsumerRecord<byte[], byte[]> r) {
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
        if (reader.caughtUp() && event.getKindCase() == EngineEvent.KindCase.PREDICTED
                && producers.instanceId().equals(event.getPredicted().getDecidedBy())) {
            return; // this replica's own decision, applied when it was made
        }
        metrics.event(routing.applier().apply(event));
    }

    @PreDestroy
    void stop() {
        reader.stop();
    }
}
