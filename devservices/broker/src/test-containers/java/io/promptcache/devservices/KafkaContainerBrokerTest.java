package io.promptcache.devservices;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

import io.promptcache.schema.topic.TopicCatalog;

/**
 * The broker contract against an {@code apache/kafka} container: the opt-in alternative where Docker exists
 * ({@code -Ptestcontainers}). Skipped, with a message, where no Docker daemon answers.
 */
@Tag("testcontainers")
class KafkaContainerBrokerTest extends KafkaBrokerContract {

    private static KafkaContainer kafka;

    @BeforeAll
    static void startContainer() throws Exception {
        if (!DockerClientFactory.instance().isDockerAvailable()) {
            return;
        }
        kafka = new KafkaContainer("apache/kafka:4.1.1");
        kafka.start();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.getBootstrapServers()))) {
            admin.createTopics(TopicCatalog.defaults().newTopics(1, (short) 1)).all().get(60, TimeUnit.SECONDS);
        }
    }

    @BeforeEach
    void requireDocker() {
        // Per test, so each contract test is reported as skipped with this message.
        assumeTrue(kafka != null,
                "no Docker daemon: the Testcontainers broker contract is skipped (the embedded broker ran it)");
    }

    @AfterAll
    static void stopContainer() {
        if (kafka != null) {
            kafka.stop();
        }
    }

    @Override
    protected String bootstrapServers() {
        return kafka.getBootstrapServers();
    }
}
