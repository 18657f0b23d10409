package io.promptcache.gc.streams;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

import io.promptcache.schema.topic.TopicCatalog;
import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

@QuarkusTest
class CoPartitioningCheckTest {

    @Test
    void shouldBeUpOnTheCatalogsTopics() {
        given().get("/q/health/ready").then().statusCode(200).body(containsString("co-partitioning"));
    }

    @Test
    void shouldBeDownWhenObjectsAndAccessDifferInPartitions() throws Exception {
        // Given: topics under another prefix, access with fewer partitions than objects
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic("mismatch.objects", 4, (short) 1),
                    new NewTopic("mismatch.access", 2, (short) 1), new NewTopic("mismatch.prefixes", 4, (short) 1)))
                    .all().get();
            // created is not yet served: the broker learns of new topics from the controller a moment later
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> admin.describeTopics(List.of(
                    "mismatch.objects", "mismatch.access", "mismatch.prefixes")).allTopicNames().get().size() == 3);
        }
        CoPartitioningCheck check = new CoPartitioningCheck();
        check.kafka = Map.of("bootstrap.servers", bootstrap);
        check.catalog = new TopicCatalog("mismatch.");

        // When
        HealthCheckResponse response = check.call();

        // Then
        assertThat(response.getStatus()).isEqualTo(HealthCheckResponse.Status.DOWN);
        assertThat(response.getData().orElseThrow()).as(response.getData().orElseThrow().toString())
                .containsKey("partitions");
        assertThat(response.getData().orElseThrow().get("partitions").toString()).contains("mismatch.access=2");
    }
}
