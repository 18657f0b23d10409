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

    /**
     * @param record the raw record as consumed
     * @param failure why it could not be read
     * @param reporterId who gives up on it (application or group id)
     * @param nowMillis current time
     */
    public static DeadLetter of(ConsumerRecord<byte[], byte[]> record, Throwable failure, String reporterId,
            long nowMillis) {
        DeadLetter.Builder letter = DeadLetter.newBuilder()
                .setSchemaVersion(SchemaVersion.CURRENT)
                .setSourceTopic(record.topic())
                .setSourcePartition(record.partition())
                .setSourceOffset(record.offset())
                .setExceptionClass(failure.getClass().getName())
                .setReporterId(reporterId == null ? "" : reporterId)
                .setFailedAtMs(nowMillis);
        if (record.key() != null) {
            letter.setKey(ByteString.copyFrom(record.key()));
        }
        if (record.value() != null) {
            letter.setValue(ByteString.copyFrom(record.value()));
        }
        if (failure instanceof UnreadableRecordException unreadable) {
            letter.setPart(unreadable.part()).setReason(unreadable.reason());
        } else {
            letter.setPart("unknown").setReason(String.valueOf(failure.getMessage()));
        }
        return letter.build();
    }
}
