package io.promptcache.schema.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;

/**
 * The Kafka client settings of a service ({@code kafka.*} in its configuration, prefix stripped: Quarkus' bean
 * {@code @Identifier("default-kafka-broker")}), cut to what one kind of client takes. Every Kafka client of every
 * service is built from these, so {@code kafka.bootstrap.servers}, {@code kafka.security.protocol},
 * {@code kafka.sasl.*} and {@code kafka.ssl.*} reach all of them (Kafka Streams takes the same map through Quarkus).
 */
public final class ClientSettings {

    private ClientSettings() {
    }

    /**
     * A Kafka client configuration file as Kafka's own tools take it ({@code --command-config}): {@code key=value}
     * lines such as {@code security.protocol=SASL_SSL}, {@code sasl.mechanism=PLAIN}, {@code sasl.jaas.config=...},
     * {@code ssl.truststore.location=...}; empty when {@code file} is null.
     */
    public static Map<String, String> load(Path file) {
        Map<String, String> settings = new TreeMap<>();
        if (file == null) {
            return settings;
        }
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the Kafka client configuration " + file, e);
        }
        properties.stringPropertyNames().forEach(key -> settings.put(key, properties.getProperty(key).trim()));
        return settings;
    }

    /** The settings a producer takes (no serializers: the caller sets its own). */
    public static Map<String, Object> producer(Map<String, ?> kafka) {
        Map<String, Object> config = only(kafka, ProducerConfig.configNames());
        config.remove(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG);
        config.remove(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);
        return config;
    }

    /** The settings a consumer takes (no deserializers: the caller sets its own). */
    public static Map<String, Object> consumer(Map<String, ?> kafka) {
        Map<String, Object> config = only(kafka, ConsumerConfig.configNames());
        config.remove(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG);
        config.remove(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG);
        return config;
    }

    /** The settings an admin client takes. */
    public static Map<String, Object> admin(Map<String, ?> kafka) {
        return only(kafka, AdminClientConfig.configNames());
    }

    private static Map<String, Object> only(Map<String, ?> kafka, Set<String> names) {
        Map<String, Object> config = new HashMap<>();
        kafka.forEach((key, value) -> {
            if (names.contains(key) && value != null) {
                config.put(key, value);
            }
        });
        return config;
    }
}
