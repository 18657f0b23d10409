package io.promptcache.schema.deadletter;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.serde.EventSerdes;
import io.promptcache.schema.serde.UnreadableRecordException;
import io.promptcache.schema.topic.TopicCatalog;

import static org.assertj.core.api.Assertions.assertThat;

/** Pure logic of building and sending dead letters; the real-broker path is tested in devservices. */
class DeadLetterPublisherTest {

    private static final ConsumerRecord<byte[], byte[]> POISON = new ConsumerRecord<>("promptcache.objects", 3, 41L,
            new byte[]{9}, new byte[]{(byte) 0xFF});

    @Test
    void shouldSendTheOriginalKeyAndTheReasonToTheDeadLetterTopic() {
        // Given
        MockProducer<byte[], byte[]> producer = new MockProducer<>(true, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        UnreadableRecordException failure = catchFailure();
        // When
        try (DeadLetterPublisher publisher = new DeadLetterPublisher(producer, TopicCatalog.defaults(), "app-1")) {
            publisher.publish(POISON, failure);
            // Then
            assertThat(publisher.published()).isEqualTo(1);
        }
        assertThat(producer.history()).hasSize(1);
        assertThat(producer.history().get(0).topic()).isEqualTo("promptcache.dead-letters");
        assertThat(producer.history().get(0).key()).containsExactly(9);
        DeadLetter letter = EventSerdes.deadLetter().deserialize("t", producer.history().get(0).value());
        assertThat(letter.getSourceTopic()).isEqualTo("promptcache.objects");
        assertThat(letter.getSourcePartition()).isEqualTo(3);
        assertThat(letter.getSourceOffset()).isEqualTo(41L);
        assertThat(letter.getPart()).isEqualTo("value");
        assertThat(letter.getReason()).contains("not a ObjectRecord");
        assertThat(letter.getValue().toByteArray()).containsExactly(0xFF);
        assertThat(letter.getReporterId()).isEqualTo("app-1");
    }

    @Test
    void shouldNeverThrowWhenTheDeadLetterCannotBeSent() {
        // Given: a producer whose sends fail
        MockProducer<byte[], byte[]> producer = new MockProducer<>(false, null, new ByteArraySerializer(),
                new ByteArraySerializer());
        try (DeadLetterPublisher publisher = new DeadLetterPublisher(producer, TopicCatalog.defaults(), "app-1")) {
            // When
            publisher.publish(POISON, catchFailure());
            producer.errorNext(new org.apache.kafka.common.errors.TimeoutException("broker away"));
            // Then
            assertThat(publisher.failed()).isEqualTo(1);
            assertThat(publisher.published()).isZero();
        }
    }

    private static UnreadableRecordException catchFailure() {
        try {
            EventSerdes.objectRecord().deserialize("promptcache.objects", POISON.value());
            throw new AssertionError("garbage must not parse");
        } catch (UnreadableRecordException e) {
            return e;
        }
    }
}
