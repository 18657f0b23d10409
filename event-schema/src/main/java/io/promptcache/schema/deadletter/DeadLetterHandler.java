package io.promptcache.schema.deadletter;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.processor.api.Record;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;

/**
 * Kafka Streams exception handler: every record that cannot be read, processed or written goes to the
 * {@code dead-letters} topic and the stream continues; a record never stops a stream thread. Set it as
 * {@code deserialization.exception.handler}, {@code processing.exception.handler} and
 * {@code production.exception.handler} (Quarkus: {@code kafka-streams.<name>}); it takes {@code bootstrap.servers}
 * (and security settings) from the Streams configuration and {@value TopicCatalog#PREFIX_CONFIG_KEY} for the topic
 * prefix. A record the producer refused for a reason that may pass (a retriable error) is retried, as Kafka
 * Streams' default does; one it refused for good (too large for its topic, say) is the dead letter.
 */
public class DeadLetterHandler
        implements
            DeserializationExceptionHandler,
            ProcessingExceptionHandler,
            ProductionExceptionHandler {

    private final Map<String, Object> producerConfig = new HashMap<>();
    private TopicCatalog catalog;
    private String reporterId;
    /** Created on the first unreadable record: a healthy stream opens no extra connection. */
    private DeadLetterPublisher publisher;

    @Override
    public void configure(Map<String, ?> configs) {
        producerConfig.putAll(ClientSettings.producer(configs));
        producerConfig.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, configs.get(StreamsConfig.APPLICATION_ID_CONFIG)
                + "-dead-letters");
        producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
        producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        Object prefix = configs.get(TopicCatalog.PREFIX_CONFIG_KEY);
        catalog = prefix == null ? TopicCatalog.defaults() : new TopicCatalog(prefix.toString());
        reporterId = String.valueOf(configs.get(StreamsConfig.APPLICATION_ID_CONFIG));
    }

    @Override
    public DeserializationHandlerResponse handle(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record,
            Exception exception) {
        publisher().publish(record, exception);
        return DeserializationHandlerResponse.CONTINUE;
    }

    /** A processor threw on {@code record}: the record it was processing (as consumed) is the dead letter. */
    @Override
    public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
        publisher().publish(DeadLetters.of(context.topic(), context.partition(), context.offset(),
                context.sourceRawKey(), context.sourceRawValue(), exception, reporterId, System.currentTimeMillis()),
                context.sourceRawKey());
        return ProcessingHandlerResponse.CONTINUE;
    }

    @Override
    public ProductionExceptionHandlerResponse handle(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
            Exception exception) {
        if (exception instanceof RetriableException) {
            return ProductionExceptionHandlerResponse.RETRY;
        }
        publisher().publish(DeadLetters.of(record.topic(), record.partition() == null ? -1 : record.partition(), -1,
                record.key(), record.value(), exception, reporterId, System.currentTimeMillis()), record.key());
        return ProductionExceptionHandlerResponse.CONTINUE;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public ProductionExceptionHandlerResponse handleSerializationException(ErrorHandlerContext context,
            ProducerRecord record, Exception exception, SerializationExceptionOrigin origin) {
        publisher().publish(DeadLetters.of(record.topic(), -1, -1, context.sourceRawKey(),
                context.sourceRawValue(), exception, reporterId, System.currentTimeMillis()), context.sourceRawKey());
        return ProductionExceptionHandlerResponse.CONTINUE;
    }

    private synchronized DeadLetterPublisher publisher() {
        if (publisher == null) {
            publisher = new DeadLetterPublisher(
                    new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer()),
                    catalog, reporterId);
        }
        return publisher;
    }
}
