package io.promptcache.index.api;

import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;

import io.promptcache.devservices.testing.StorageNodeFixture;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/**
 * The fixture of the {@code @QuarkusTest}s that store: devservices-testing's node fixture, and before each test the
 * index's {@code store} health group UP (the node's heartbeat seen).
 */
abstract class NodeBackedTest extends StorageNodeFixture {

    @BeforeEach
    void storeReady() {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                .statusCode(200));
    }
}
