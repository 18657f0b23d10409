package io.promptcache.schema.serde;

import java.util.function.Function;

import org.apache.kafka.common.serialization.Serde;

/**
 * Serde of one key type with a fixed binary form: plain Kafka serializer/deserializer and Kafka Streams
 * {@link Serde}. Bytes that do not decode raise {@link UnreadableRecordException}.
 *
 * @param <K> the key type
 */
public final class KeySerde<K> extends CombinedSerde<K> {

    private final String typeName;
    private final Function<K, byte[]> encode;
    private final Function<byte[], K> decode;

    public KeySerde(String typeName, Function<K, byte[]> encode, Function<byte[], K> decode) {
        this.typeName = typeName;
        this.encode = encode;
        this.decode = decode;
    }

    @Override
    public byte[] serialize(String topic, K key) {
        return key == null ? null : encode.apply(key);
    }

    @Override
    public K deserialize(String topic, byte[] data) {
        if (data == null) {
            throw new UnreadableRecordException(topic, "key", typeName + " key is missing", null);
        }
        try {
            return decode.apply(data);
        } catch (IllegalArgumentException e) {
            throw new UnreadableRecordException(topic, "key", "not a " + typeName + ": " + e.getMessage(), e);
        }
    }
}
