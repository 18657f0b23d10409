package io.promptcache.deploy;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.stack.topics.StrimziTopics;

import static org.assertj.core.api.Assertions.assertThat;

/** The checked-in KafkaTopics are exactly what the topic catalog gives: one source of truth. */
class KafkaTopicsDriftTest {

    static final Path TOPICS = Path.of("k8s/base/kafka-topics.yaml");

    @Test
    void shouldMatchTheTopicCatalog() throws Exception {
        // Given
        String expected = StrimziTopics.render(TopicCatalog.defaults(), "promptcache", 0, 3);

        // When
        String checkedIn = Files.readString(TOPICS);

        // Then
        assertThat(checkedIn).as("deploy/%s drifted from event-schema's topic catalog; regenerate it with "
                + "./promptcache topics --strimzi promptcache --replicas 3 --out deploy/%s", TOPICS, TOPICS)
                .isEqualTo(expected);
    }
}
