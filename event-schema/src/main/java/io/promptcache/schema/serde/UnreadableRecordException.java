package io.promptcache.schema.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The one exception for a record that cannot be read: not parseable, an unknown schema version, or a value
 * that breaks the contract. Streams route it to the {@code dead-letters} topic (see
 * {@link io.promptcache.schema.deadletter.DeadLetterHandler}); it never stops a stream thread.
 */
public class UnreadableRecordException extends SerializationException {

    private static final long serialVersionUID = 1L;

    private final String topic;
    private final String part;
    private final String reason;

    public UnreadableRecordException(String topic, String part, String reason, Throwable cause) {
        super("unreadable " + part + " on topic " + topic + ": " + reason, cause);
        this.topic = topic;
        this.part = part;
        this.reason = reason;
    }

    /** The topic the record came from (may be null when unknown). */
    public String topic() {
        return topic;
    }

    /** {@code "key"} or {@code "value"}. */
    public String part() {
        return part;
    }

    /** Why the record is unreadable, for people. */
    public String reason() {
        return reason;
    }
}
