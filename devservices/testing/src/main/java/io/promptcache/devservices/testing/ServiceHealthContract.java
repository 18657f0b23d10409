package io.promptcache.devservices.testing;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * What every service shows in its {@code @QuarkusTest}: it starts on the embedded broker handed in by
 * promptcache-devservices, with no Kafka test annotation anywhere, and reports live and ready. Extend it from a
 * {@code @QuarkusTest} class of the service.
 */
public abstract class ServiceHealthContract {

    /** The dev service sets this together with {@code kafka.bootstrap.servers} whenever it starts its broker. */
    public static final String STREAMS_BOOTSTRAP_SERVERS = "quarkus.kafka-streams.bootstrap-servers";

    /** The readiness check that must be among the service's checks. */
    protected String readinessCheckName() {
        return "Kafka connection health check";
    }

    @Test
    void shouldBeReadyWithTheEmbeddedBroker() {
        String bootstrapServers = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        assertThat(bootstrapServers).as("bootstrap servers handed in by promptcache-devservices")
                .matches("(localhost|127\\.0\\.0\\.1):\\d+");
        assertThat(ConfigProvider.getConfig().getOptionalValue(STREAMS_BOOTSTRAP_SERVERS, String.class))
                .as("the broker handed to Kafka Streams too").contains(bootstrapServers);
        awaitReady();
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem(readinessCheckName()));
    }

    /**
     * Waits (at most {@value #READY_WITHIN_SECONDS} s) for readiness: a service restoring state (Kafka Streams
     * global stores) is DOWN for a while after start, by design.
     */
    public static void awaitReady() {
        long deadline = System.nanoTime() + READY_WITHIN_SECONDS * 1_000_000_000L;
        while (given().when().get("/q/health/ready").statusCode() != 200 && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static final long READY_WITHIN_SECONDS = 60;

    @Test
    void shouldBeLive() {
        given().when().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }
}
