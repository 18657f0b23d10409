package io.promptcache.deploy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code deploy/compose/compose.yaml}, checked by structure (no Docker engine and no compose plugin on the build
 * machines, and the compose specification's schema cannot be fetched here): every image it builds has its
 * Dockerfile, every dependency and volume is declared, secrets are required rather than defaulted, and every
 * promptcache setting it uses is one the Kubernetes manifests use too (those are started by DockerfilesIT).
 */
class ComposeTest {

    private static final Path COMPOSE = Path.of("compose/compose.yaml");
    private static final Pattern SETTING = Pattern
            .compile("(PROMPTCACHE_[A-Z0-9_]+|KAFKA_[A-Z0-9_]+|QUARKUS_[A-Z0-9_]+)");

    @Test
    void shouldBuildFromTheDockerfilesAndDeclareWhatItUses() throws Exception {
        // Given
        JsonNode compose = Manifests.documents(Files.readString(COMPOSE)).get(0);
        JsonNode services = compose.path("services");
        Set<String> volumes = new HashSet<>();
        compose.path("volumes").fieldNames().forEachRemaining(volumes::add);

        // When
        List<String> problems = new ArrayList<>();
        services.properties().forEach(service -> {
            String name = service.getKey();
            JsonNode spec = service.getValue();
            if (spec.has("build")) {
                Path dockerfile = COMPOSE.getParent().resolve(spec.path("build").path("context").asText())
                        .resolve(spec.path("build").path("dockerfile").asText()).normalize();
                if (!Files.isRegularFile(dockerfile)) {
                    problems.add(name + ": no " + dockerfile);
                }
            } else if (!spec.hasNonNull("image")) {
                problems.add(name + ": neither build nor image");
            }
            spec.path("depends_on").fieldNames().forEachRemaining(d -> {
                if (!services.has(d)) {
                    problems.add(name + " depends on an undefined service " + d);
                }
            });
            spec.path("volumes").forEach(v -> {
                String text = v.asText();
                // a source given by a variable (${NAME:-default}) is a folder of the host, as its default says
                String source = text.startsWith("${")
                        ? text.substring(text.indexOf(":-") + 2, text.indexOf('}'))
                        : text.split(":")[0];
                if (!source.startsWith(".") && !source.startsWith("/") && !volumes.contains(source)) {
                    problems.add(name + ": volume " + source + " is not declared");
                }
            });
            spec.path("environment").properties().forEach(e -> {
                if ((e.getKey().contains("SECRET") || e.getKey().contains("CREDENTIALS")
                        || e.getKey().endsWith("API_KEYS")) && !e.getValue().asText().contains(":?")) {
                    problems.add(name + ": " + e.getKey() + " must be required (${VAR:?...}), never defaulted");
                }
            });
        });

        // Then: no service without authentication
        JsonNode index = services.path("index-service").path("environment");
        assertThat(index.path("PROMPTCACHE_INDEX_AUTH_MODE").asText()).isEqualTo("api-key");
        assertThat(index.path("PROMPTCACHE_INDEX_AUTH_TENANTS_DEFAULT_PRINCIPALS_ENGINES_API_KEYS").asText())
                .contains(":?");
        JsonNode node = services.path("storage-node").path("environment");
        assertThat(node.path("PROMPTCACHE_STORAGE_AUTH_MODE").asText()).isEqualTo("sigv4");
        assertThat(node.path("PROMPTCACHE_STORAGE_AUTH_CREDENTIALS_PROMPTCACHE").asText()).contains(":?");
        // and no listener without TLS: HTTPS only on each service's port, with the stores `promptcache certs` made
        for (String name : List.of("storage-node", "index-service", "gc-processor")) {
            JsonNode service = services.path(name);
            String port = service.path("ports").get(0).asText().split(":")[1];
            assertThat(service.path("environment").path("QUARKUS_HTTP_SSL_PORT").asText()).as(name).isEqualTo(port);
            assertThat(service.path("environment").path("QUARKUS_HTTP_INSECURE_REQUESTS").asText()).as(name)
                    .isEqualTo("disabled");
            assertThat(service.path("env_file").get(0).asText()).as(name)
                    .isEqualTo("${PROMPTCACHE_TLS_DIR:-./tls}/tls.env");
            assertThat(service.path("volumes").toString()).as(name)
                    .contains("${PROMPTCACHE_TLS_DIR:-./tls}:/etc/promptcache/tls:ro");
            assertThat(service.path("healthcheck").path("test").toString()).as(name).contains("https://");
            // the tls folder is 0750/0640 (certs): the images' user 185 reads it through the folder's group
            assertThat(service.path("group_add").get(0).asText()).as(name).isEqualTo("${PROMPTCACHE_TLS_GID:-0}");
        }
        // a service that crashes comes back by itself (ComposeStackIT kills the index's JVM and waits for it)
        for (String name : List.of("kafka", "storage-node", "index-service", "gc-processor")) {
            assertThat(services.path(name).path("restart").asText()).as(name + ": restart").isEqualTo("unless-stopped");
        }
        // docker-compose 1.29 (Debian 12's, the one that honours depends_on conditions) refuses a top-level `name:`
        List<String> topLevel = new ArrayList<>();
        compose.fieldNames().forEachRemaining(topLevel::add);
        assertThat(topLevel).containsExactly("services", "volumes");
        assertThat(node.path("PROMPTCACHE_STORAGE_ADVERTISED_ENDPOINT").asText()).startsWith("https://");
        assertThat(problems).isEmpty();
        assertThat(services.has("kafka") && services.has("topics") && services.has("storage-node")
                && services.has("index-service") && services.has("gc-processor")).isTrue();
    }

    @Test
    void shouldUseOnlySettingsTheKubernetesManifestsUseToo() throws Exception {
        // Given: every setting name in the manifests (these start the services in DockerfilesIT)
        Set<String> manifests = new HashSet<>();
        try (var files = Files.walk(Manifests.K8S)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".yaml")).toList()) {
                names(Files.readString(file), manifests);
            }
        }
        Set<String> compose = new HashSet<>();
        Manifests.documents(Files.readString(COMPOSE)).get(0).path("services").properties().forEach(s -> {
            if (!s.getKey().equals("kafka")) {
                s.getValue().path("environment").fieldNames().forEachRemaining(compose::add);
            }
        });

        // Then
        assertThat(compose).isNotEmpty();
        assertThat(manifests).containsAll(compose);
    }

    private static void names(String text, Set<String> into) {
        Matcher m = SETTING.matcher(text);
        while (m.find()) {
            into.add(m.group(1));
        }
    }
}
