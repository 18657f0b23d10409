package io.promptcache.devservices;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import io.promptcache.devservices.junit.EmbeddedKafkaExtension;
import io.promptcache.schema.topic.TopicCatalog;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(EmbeddedKafkaExtension.class)
class EmbeddedKafkaBrokerTest extends KafkaBrokerContract {

    private final EmbeddedKafkaBroker broker;

    EmbeddedKafkaBrokerTest(EmbeddedKafkaBroker broker) {
        this.broker = broker;
    }

    @Override
    protected String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Test
    void shouldServeOnLoopback() {
        assertThat(broker.bootstrapServers()).matches("(localhost|127\\.0\\.0\\.1):\\d+");
    }

    @Test
    void shouldKeepAChosenDataDirectoryAndDeleteATemporaryOne(@org.junit.jupiter.api.io.TempDir Path dir) {
        // Given: a second broker with its own catalog prefix and a kept data directory
        Path data = dir.resolve("kafka");
        EmbeddedKafkaBroker kept = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults()
                .withDataDirectory(data).withCatalog(new TopicCatalog("other.")).withPartitions(1));
        // When
        kept.close();
        kept.close();
        // Then
        assertThat(data).isDirectory();
        assertThat(Files.exists(data.resolve("combined_0_0")) || data.toFile().list().length > 0).isTrue();
    }
}
