package io.promptcache.index;

import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/** The service starts on the embedded broker (no Kafka test annotation anywhere) and reports ready. */
@QuarkusTest
class HealthTest {

    @ConfigProperty(name = "kafka.bootstrap.servers")
    String bootstrapServers;

    @Test
    void shouldBeReadyWithTheEmbeddedBroker() {
        assertThat(bootstrapServers).as("bootstrap servers handed in by promptcache-devservices")
                .matches("(localhost|127\\.0\\.0\\.1):\\d+");
        // the dev service hands the broker to Kafka Streams too (ExternalKafkaTest relies on this key)
        assertThat(ConfigProvider.getConfig().getOptionalValue("quarkus.kafka-streams.bootstrap-servers",
                String.class)).contains(bootstrapServers);
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("Kafka connection health check"));
    }

    @Test
    void shouldBeLive() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }
}
