package io.promptcache.schema.serde;

import java.util.Map;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * A stateless serde that is its own serializer and deserializer, usable by plain Kafka clients and by Kafka
 * Streams alike.
 *
 * @param <T> the serialized type
 */
abstract class CombinedSerde<T> implements Serde<T>, Serializer<T>, Deserializer<T> {

    @Override
    public final Serializer<T> serializer() {
        return this;
    }

    @Override
    public final Deserializer<T> deserializer() {
        return this;
    }

    @Override
    public final void configure(Map<String, ?> configs, boolean isKey) {
        // stateless: nothing to configure
    }

    @Override
    public final void close() {
        // stateless: nothing to release
    }
}
