package io.promptcache.schema.deadletter;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import com.google.protobuf.ByteString;

import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.serde.UnreadableRecordException;

/** Builds the {@link DeadLetter} of a record that could not be read. */
public final class DeadLetters {

    private DeadLetters() {
    }

    /** Original values longer than this are cut in a dead letter (which must fit the dead-letters topic itself). */
    static final int MAX_VALUE_BYTES = 512 * 1024;

    /**
     * @param record the raw record as consumed
     * @param failure why it could not be read
     * @param reporterId who gives up on it (application or group id)
     * @param nowMillis current time
     */
    public static DeadLetter of(ConsumerRecord<byte[], byte[]> record, Throwable failure, String reporterId,
            long nowMillis) {
        return of(record.topic(), record.partition(), record.offset(), record.key(), record.value(), failure,
                reporterId, nowMillis);
    }

    /**
     * The dead letter of a record read from (or meant for) {@code topic}; partition and offset -1 where unknown (a
     * record a producer refused). A value longer than {@value #MAX_VALUE_BYTES} bytes is kept cut to that, and the
     * reason says so.
     */
    public static DeadLetter of(String topic, int partition, long offset, byte[] key, byte[] value, Throwable failure,
            String reporterId, long nowMillis) {
        DeadLetter.Builder letter = DeadLetter.newBuilder()
                .setSchemaVersion(SchemaVersion.CURRENT)
                .setSourceTopic(topic == null ? "unknown" : topic)
                .setSourcePartition(partition)
                .setSourceOffset(offset)
                .setExceptionClass(failure.getClass().getName())
                .setReporterId(reporterId == null ? "" : reporterId)
                .setFailedAtMs(nowMillis);
        if (key != null) {
            letter.setKey(ByteString.copyFrom(key));
        }
        String cut = "";
        if (value != null) {
            letter.setValue(ByteString.copyFrom(value, 0, Math.min(value.length, MAX_VALUE_BYTES)));
            if (value.length > MAX_VALUE_BYTES) {
                cut = " (value of " + value.length + " bytes cut to its first " + MAX_VALUE_BYTES + ")";
            }
        }
        if (failure instanceof UnreadableRecordException unreadable) {
            letter.setPart(unreadable.part()).setReason(unreadable.reason() + cut);
        } else {
            letter.setPart("unknown").setReason(failure.getMessage() + cut);
        }
        return letter.build();
    }
}
