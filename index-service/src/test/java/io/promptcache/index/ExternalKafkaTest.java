package io.promptcache.index;

import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * When {@code kafka.bootstrap.servers} is configured (properties, environment, profile), the service uses that
 * cluster and the dev service starts no broker of its own: an external cluster always wins.
 *
 * <p>Note: a {@code QuarkusTestResourceLifecycleManager} is not a way to configure that: its config arrives after
 * the build step has decided, so a broker would start anyway.
 */
@QuarkusTest
@TestProfile(ExternalKafkaTest.ExternalKafkaProfile.class)
class ExternalKafkaTest {

    private static final String EXTERNAL_MARKER = "promptcache.test.external-bootstrap-servers";

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrapServers;

    @ConfigProperty(name = EXTERNAL_MARKER)
    String externalBootstrapServers;

    @Test
    void shouldUseTheConfiguredClusterInsteadOfStartingOne() {
        assertThat(bootstrapServers).isEqualTo(externalBootstrapServers);
        assertThat(ConfigProvider.getConfig().getOptionalValue(ServiceHealthContract.STREAMS_BOOTSTRAP_SERVERS,
                String.class)).as("Kafka Streams follows kafka.bootstrap.servers").contains(externalBootstrapServers);
        ServiceHealthContract.awaitReady();
        given().when().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
    }

    /**
     * Points the service at a broker started outside Quarkus' dev services, as an operator's cluster would be. The
     * broker stops with the test JVM (its shutdown hook).
     */
    public static class ExternalKafkaProfile implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            String servers = OwnBrokers.bootstrap("external-kafka-test");
            return Map.of("kafka.bootstrap.servers", servers, EXTERNAL_MARKER, servers);
        }
    }
}
