package io.promptcache.schema.deadletter;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;

/**
 * Sends unreadable records to the {@code dead-letters} topic. Never throws: a dead letter that cannot be sent
 * is logged (ERROR: an operator must look) and counted, and the caller carries on.
 */
public final class DeadLetterPublisher implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetterPublisher.class);

    private final Producer<byte[], byte[]> producer;
    private final String topic;
    private final String reporterId;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    /**
     * @param producer producer of raw bytes; owned (closed) by this publisher
     * @param catalog names the dead-letters topic
     * @param reporterId recorded in every dead letter
     */
    public DeadLetterPublisher(Producer<byte[], byte[]> producer, TopicCatalog catalog, String reporterId) {
        this.producer = producer;
        this.topic = catalog.name(Topics.DEAD_LETTERS);
        this.reporterId = reporterId;
    }

    /** Publishes the dead letter of {@code record}; returns at once (the send is asynchronous). */
    public void publish(ConsumerRecord<byte[], byte[]> record, Throwable failure) {
        publish(DeadLetters.of(record, failure, reporterId, System.currentTimeMillis()), record.key());
    }

    /** Publishes {@code letter} under {@code key} (the original record's); returns at once. */
    public void publish(DeadLetter letter, byte[] key) {
        String source = letter.getSourceTopic() + "-" + letter.getSourcePartition() + "@" + letter.getSourceOffset();
        LOG.warn("Record {} sent to {} ({}): {}", source, topic, letter.getExceptionClass(), letter.getReason());
        byte[] value = Topics.DEAD_LETTERS.valueSerde().serializer().serialize(topic, letter);
        try {
            producer.send(new ProducerRecord<>(topic, key, value), (metadata, error) -> {
                if (error == null) {
                    published.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                    LOG.error("Could not publish dead letter of {}: {}", source, error.toString());
                }
            });
        } catch (RuntimeException e) {
            failed.incrementAndGet();
            LOG.error("Could not publish dead letter of {}: {}", source, e.toString());
        }
    }

    /** Dead letters acknowledged by the broker. */
    public long published() {
        return published.get();
    }

    /** Dead letters that could not be sent. */
    public long failed() {
        return failed.get();
    }

    public void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
