package io.promptcache.schema.deadletter;

import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;

import io.promptcache.schema.kafka.ClientSettings;
import io.promptcache.schema.topic.TopicCatalog;

/**
 * Kafka Streams deserialization handler: every record that cannot be read goes to the {@code dead-letters} topic
 * and the stream continues. Set it as {@code default.deserialization.exception.handler} (Quarkus:
 * {@code kafka-streams.default.deserialization.exception.handler}); it takes {@code bootstrap.servers} (and
 * security settings) from the Streams configuration and {@value TopicCatalog#PREFIX_CONFIG_KEY} for the topic
 * prefix.
 */
public class DeadLetterHandler implements DeserializationExceptionHandler {

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

    private synchronized DeadLetterPublisher publisher() {
        if (publisher == null) {
            publisher = new DeadLetterPublisher(
                    new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer()),
                    catalog, reporterId);
        }
        return publisher;
    }
}
