package io.promptcache.index.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.ServiceProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A topic reader on a real broker (issue 68: the node feed's reader died for good when its broker answered slowly at
 * start, and every store was refused until the replica was restarted by hand).
 */
class TopicReaderTest {

    private static final String TOPIC = "reader-test";

    @Test
    void shouldReadEveryRecordOnceTheBrokerComesUpAfterTheReaderStarted() throws Exception {
        // Given: a reader started while nothing listens where its broker will be (a broker slow to start)
        int port = ServiceProcess.freePort();
        List<String> values = new CopyOnWriteArrayList<>();
        TopicReader reader = reader("127.0.0.1:" + port, r -> values.add(value(r)));
        reader.start();
        try {
            // its metadata call timed out (before the fix, the reader ended there for good)
            await().atMost(Duration.ofSeconds(30)).until(() -> reader.restarts() >= 1);
            assertThat(reader.stoppedForGood()).isFalse();

            // When: the broker comes up there, with the topic and its records
            try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                    .withPort(port))) {
                broker.createTopics(List.of(new NewTopic(TOPIC, 3, (short) 1)));
                List<String> sent = send(broker.bootstrapServers(), 0, 30);

                // Then: the reader reads them all, once, and says it caught up
                await().atMost(Duration.ofSeconds(60)).until(() -> values.size() >= sent.size()
                        && reader.caughtUp());
                assertThat(values).containsExactlyInAnyOrderElementsOf(sent);
                assertThat(reader.stoppedForGood()).isFalse();
            }
        } finally {
            reader.stop();
        }
    }

    @Test
    void shouldStartOverFromWhereItWasAfterAFailureWithoutRepeatingOrSkippingARecord() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            // Given: 40 records, and a handler that fails on the 10th the first time it is handed over
            broker.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)));
            List<String> sent = send(broker.bootstrapServers(), 0, 40);
            List<String> values = new CopyOnWriteArrayList<>();
            AtomicBoolean failed = new AtomicBoolean();
            TopicReader reader = reader(broker.bootstrapServers(), r -> {
                if (values.size() == 9 && failed.compareAndSet(false, true)) {
                    throw new IllegalStateException("a failure of the reader's consumer or handler");
                }
                values.add(value(r));
            });

            // When
            reader.start();
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> values.size() >= sent.size());
                List<String> more = send(broker.bootstrapServers(), 40, 10);
                await().atMost(Duration.ofSeconds(30)).until(() -> values.size() >= sent.size() + more.size());

                // Then: started over once, every record handed over once
                List<String> all = new ArrayList<>(sent);
                all.addAll(more);
                assertThat(reader.restarts()).isEqualTo(1);
                assertThat(values).containsExactlyInAnyOrderElementsOf(all);
                assertThat(reader.caughtUp()).isTrue();
            } finally {
                reader.stop();
            }
        }
    }

    @Test
    void shouldSayItStoppedForGoodWhenAnErrorEndsIt() throws Exception {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
            broker.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)));
            send(broker.bootstrapServers(), 0, 1);
            TopicReader reader = reader(broker.bootstrapServers(), r -> {
                throw new StackOverflowError("an Error no retry can mend");
            });
            reader.start();
            try {
                // the Error is the reader thread's own (Awaitility would otherwise fail the wait on it)
                await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(30)).until(reader::stoppedForGood);
            } finally {
                reader.stop();
            }
        }
    }

    private static TopicReader reader(String bootstrap, Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        return new TopicReader(overrides -> {
            Map<String, Object> config = new HashMap<>(overrides);
            config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            config.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2_000);
            return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        }, "reader-test-client", TOPIC, "reader-test", 5, Duration.ofSeconds(1), handler);
    }

    private static String value(ConsumerRecord<byte[], byte[]> r) {
        return new String(r.value(), StandardCharsets.UTF_8);
    }

    /** Sends records {@code from}, ..., {@code from + count - 1}; their values. */
    private static List<String> send(String bootstrap, int from, int count) {
        List<String> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i));
                sent.add("v" + i);
            }
            producer.flush();
        }
        return sent;
    }
}
