package io.promptcache.schema.kafka;

import java.util.Optional;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class InstanceIdTest {

    @Test
    void shouldNameAnInstanceByItsSettingElseItsHostAndPort() {
        assertThat(InstanceId.of(Optional.of("gc-a"), 1)).isEqualTo("gc-a");
        assertThat(InstanceId.of(Optional.of(" "), 8082)).endsWith("-8082");
        assertThat(InstanceId.of(Optional.empty(), 8082)).endsWith("-8082").doesNotContain(":");
    }

    @Test
    void shouldMakeAnIdThatKafkaTakes() {
        assertThat(InstanceId.kafkaSafe("gc-host.example:8082")).isEqualTo("gc-host.example-8082");
        assertThat(InstanceId.kafkaSafe("index_1.a-b")).isEqualTo("index_1.a-b");
    }
}
