package io.promptcache.index.api;

import java.time.Duration;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/**
 * The fixture of the {@code @QuarkusTest}s that store: a packaged storage node on the test's broker, started once per
 * class (after Quarkus, whose broker it joins) and stopped after it; before each test, the index ready and its
 * {@code store} health group UP (the node's heartbeat seen). A class whose node needs configuration (SigV4, ...)
 * declares its own {@code static void startNode()} calling {@link #startNode(Map)}: it hides this one.
 */
abstract class NodeBackedTest {

    protected static StorageNodeProcess node;

    @BeforeAll
    static void startNode() {
        startNode(Map.of());
    }

    /** Starts the class's node with {@code config} (storage-node properties) on the test's broker. */
    protected static void startNode(Map<String, String> config) {
        node = StorageNodeProcess.start(ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class),
                config);
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
            node = null;
        }
    }

    @BeforeEach
    void storeReady() {
        ServiceHealthContract.awaitReady();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                .statusCode(200));
    }
}
