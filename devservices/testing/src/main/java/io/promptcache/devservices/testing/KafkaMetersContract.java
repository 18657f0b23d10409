package io.promptcache.devservices.testing;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Kafka Streams service shows on {@code /q/metrics}: its Kafka client meters, and none of the
 * per-store, per-processor-node, per-stream-topic or per-partition meters (event-schema {@code VerboseKafkaMeters}),
 * which made a gc-processor's page ~7,500 series. Extend it from a {@code @QuarkusTest} class of the service.
 */
public abstract class KafkaMetersContract {

    private static final List<String> VERBOSE = List.of("kafka_stream_state_", "kafka_stream_processor_node_",
            "kafka_stream_topic_", "kafka_stream_record_cache_");

    @Test
    void shouldPublishKafkaClientMetersButNoPerStoreOrPerPartitionOnes() throws InterruptedException {
        ServiceHealthContract.awaitReady();
        String page = metricsOnceKafkaMetersAreBound();
        assertThat(page).as("Kafka client meters are bound within 60 s").contains("kafka_consumer_");
        for (String line : page.split("\n")) {
            if (line.startsWith("#")) {
                continue;
            }
            assertThat(VERBOSE).as(line).noneMatch(line::startsWith);
            assertThat(line.startsWith("kafka_consumer_fetch_manager_") && line.contains("partition=\""))
                    .as(line).isFalse();
        }
    }

    private static String metricsOnceKafkaMetersAreBound() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String page = "";
        while (System.nanoTime() < deadline) {
            page = given().get("/q/metrics").then().statusCode(200).extract().asString();
            if (page.contains("kafka_consumer_")) {
                break;
            }
            Thread.sleep(500);
        }
        return page;
    }
}
