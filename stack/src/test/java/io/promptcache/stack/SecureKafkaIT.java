package io.promptcache.stack;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.SaslSsl;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Kafka client of every service against a broker whose only client listener requires TLS and SASL/PLAIN, the
 * settings given the standard way ({@code kafka.security.protocol}, {@code kafka.sasl.*}, {@code kafka.ssl.*}):
 * {@code promptcache topics} creates the catalog's topics over it, a storage node, an index replica and a
 * gc-processor become ready (heartbeat producer; Kafka Streams, transactional producers, the routing consumer; the
 * GC's admin check), stores hit, and a poison record reaches {@code dead-letters} (the Streams dead-letter producer).
 */
class SecureKafkaIT {

    @TempDir
    Path work;

    @Test
    void shouldServeThroughABrokerThatRequiresTlsAndSasl() throws Exception {
        // Given: the broker, none of the catalog's topics, a client settings file
        SaslSsl security = SaslSsl.selfSigned(work.resolve("tls"), "promptcache", "k4fka-" + System.nanoTime());
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withCatalog(new TopicCatalog("unrelated.")).withSaslSsl(security))) {
            Path clientFile = work.resolve("client.properties");
            Properties file = new Properties();
            file.putAll(security.clientSettings());
            try (Writer out = Files.newBufferedWriter(clientFile)) {
                file.store(out, null);
            }

            // When: the topics command creates the topics through it
            StringWriter console = new StringWriter();
            CommandLine cli = StackMain.commandLine();
            cli.setOut(new PrintWriter(console, true));
            cli.setErr(new PrintWriter(console, true));
            int created = cli.execute("topics", "--bootstrap", broker.bootstrapServers(), "--command-config",
                    clientFile.toString(), "--replication-factor", "1");

            // Then
            assertThat(created).as(console.toString()).isZero();
            assertThat(console.toString()).contains("CREATED  promptcache.prefixes");

            // When: the services run against it with the settings as kafka.*
            Map<String, String> kafka = new HashMap<>();
            security.clientSettings().forEach((key, value) -> kafka.put("kafka." + key, value));
            Path home = Path.of("..").toAbsolutePath().normalize();
            StackSpec spec = new StackSpec(home, null, 1, 1, 1, 0, 0, 0, 256L << 20, broker.bootstrapServers(),
                    kafka, kafka, kafka, true, null);
            try (Stack stack = Stack.start(spec)) {
                // (the SASL login and the stores' passwords reach them in a file, never on a command line)
                assertThat(stack.processes()).allSatisfy(p -> assertThat(p.info().commandLine()).isPresent().get()
                        .asString().contains("kafka.security.protocol").doesNotContainIgnoringCase("password"));
                Path stackFile = work.resolve("stack.json");
                stack.info().write(stackFile);
                Path report = work.resolve("report");
                StringWriter bench = new StringWriter();
                CommandLine benchCli = StackMain.commandLine();
                benchCli.setOut(new PrintWriter(bench));
                int exit = benchCli.execute("bench", "--stack-file", stackFile.toString(), "--duration", "15s",
                        "--concurrency", "2", "--kv-bytes-per-token", "64", "--system-tokens", "1024",
                        "--conversations", "8", "--out", report.toString(), "--no-progress");

                // Then: hits, no errors
                JsonNode result = new ObjectMapper().readTree(report.resolve("report.json").toFile()).get("result");
                assertThat(exit).as(bench.toString()).isZero();
                assertThat(result.get("blockHitRatio").asDouble()).as(bench.toString()).isGreaterThan(0);
                assertThat(result.get("errors").size()).as(bench.toString()).isZero();

                // When: a record no one can read lands on prefixes
                Map<String, Object> client = new HashMap<>(security.clientSettings());
                client.put("bootstrap.servers", broker.bootstrapServers());
                try (var producer = new KafkaProducer<>(client, new ByteArraySerializer(), new ByteArraySerializer())) {
                    producer.send(new ProducerRecord<>(TopicCatalog.defaults().name(Topics.PREFIXES),
                            new byte[]{1, 2, 3}, new byte[]{9, 9, 9})).get();
                }

                // Then: the services' dead-letter producers (settings from the Streams config) report it
                assertThat(deadLetters(client, Duration.ofSeconds(60))).isPositive();
            }
        }
    }

    /** Records on dead-letters, polled until one arrives or {@code within} is over. */
    private static int deadLetters(Map<String, Object> client, Duration within) {
        String topic = TopicCatalog.defaults().name(Topics.DEAD_LETTERS);
        Map<String, Object> config = new HashMap<>(client);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        try (var consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            int read = 0;
            long deadline = System.nanoTime() + within.toNanos();
            while (read == 0 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(500)).count();
            }
            return read;
        }
    }
}
