package io.promptcache.schema.serde;

import java.util.function.Function;
import java.util.function.ToIntFunction;

import org.apache.kafka.common.serialization.Serde;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;

/**
 * Serde of one Protocol Buffers record value: both the plain Kafka serializer/deserializer and a Kafka
 * Streams {@link Serde}. A null value (a compaction tombstone) passes through as null. Reading checks the
 * schema version and the message's own contract; anything wrong raises {@link UnreadableRecordException}.
 *
 * @param <T> the generated message type
 */
public final class ProtoSerde<T extends MessageLite> extends CombinedSerde<T> {

    private final String typeName;
    private final Parser<T> parser;
    private final ToIntFunction<T> schemaVersion;
    private final Function<T, String> contractViolation;

    /**
     * @param typeName message name for error messages
     * @param parser the generated parser
     * @param schemaVersion reads field 1
     * @param contractViolation returns null when the message is valid, else what is wrong
     */
    public ProtoSerde(String typeName, Parser<T> parser, ToIntFunction<T> schemaVersion,
            Function<T, String> contractViolation) {
        this.typeName = typeName;
        this.parser = parser;
        this.schemaVersion = schemaVersion;
        this.contractViolation = contractViolation;
    }

    @Override
    public byte[] serialize(String topic, T data) {
        if (data == null) {
            return null;
        }
        int version = schemaVersion.applyAsInt(data);
        if (version != SchemaVersion.CURRENT) {
            throw new IllegalArgumentException(typeName + " must carry schema_version " + SchemaVersion.CURRENT
                    + ", got " + version);
        }
        return data.toByteArray();
    }

    @Override
    public T deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        T message;
        try {
            message = parser.parseFrom(data);
        } catch (InvalidProtocolBufferException e) {
            throw new UnreadableRecordException(topic, "value", "not a " + typeName + ": " + e.getMessage(), e);
        }
        int version = schemaVersion.applyAsInt(message);
        if (version == 0) {
            throw new UnreadableRecordException(topic, "value", typeName + " without schema_version", null);
        }
        if (version > SchemaVersion.CURRENT) {
            throw new UnreadableRecordException(topic, "value",
                    typeName + " schema_version " + version + " is newer than supported " + SchemaVersion.CURRENT,
                    null);
        }
        String violation = contractViolation.apply(message);
        if (violation != null) {
            throw new UnreadableRecordException(topic, "value", typeName + ": " + violation, null);
        }
        return message;
    }
}
