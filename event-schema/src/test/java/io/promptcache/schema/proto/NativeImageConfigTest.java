package io.promptcache.schema.proto;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reflection configuration a native image needs for the protobuf messages (their field accessors are found by
 * reflection) lists every message class of the contracts and its builder: a message added to a {@code .proto} file
 * without it would fail only in a native build, which cannot run on the build machines here.
 */
class NativeImageConfigTest {

    private static final String CONFIG = "/META-INF/native-image/io.promptcache/event-schema/reflect-config.json";

    @Test
    void shouldRegisterEveryMessageAndBuilderForReflection() throws Exception {
        // Given: every generated message class of this package
        List<String> expected = new ArrayList<>();
        Path dir = Path.of(AccessEvent.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .resolve("io/promptcache/schema/proto");
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                String simple = file.getFileName().toString().replace(".class", "");
                if (simple.contains("$")) {
                    continue;
                }
                Class<?> type = Class.forName("io.promptcache.schema.proto." + simple);
                if (Message.class.isAssignableFrom(type)) {
                    expected.add(type.getName());
                    expected.add(type.getName() + "$Builder");
                }
            }
        }

        // When
        List<String> registered = new ArrayList<>();
        for (JsonNode entry : read()) {
            registered.add(entry.path("name").asText());
            assertThat(entry.path("allDeclaredMethods").asBoolean()).as(entry.toString()).isTrue();
        }

        // Then
        assertThat(expected).hasSizeGreaterThan(10);
        assertThat(registered).as("event-schema/src/main/resources" + CONFIG).containsExactlyInAnyOrderElementsOf(
                expected);
    }

    private static JsonNode read() throws IOException, URISyntaxException {
        try (InputStream in = NativeImageConfigTest.class.getResourceAsStream(CONFIG)) {
            assertThat(in).as(CONFIG).isNotNull();
            return new ObjectMapper().readTree(in);
        }
    }
}
