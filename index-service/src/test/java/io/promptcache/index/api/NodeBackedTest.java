package io.promptcache.index.api;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

/**
 * The fixture of the {@code @QuarkusTest}s that store: a packaged storage node on the test's broker, started once per
 * class (after Quarkus, whose broker it joins) and stopped after it; before each test, the index ready and its
 * {@code store} health group UP (the node's heartbeat seen). A class whose node needs configuration (SigV4, ...)
 * says so with {@link NodeConfig}.
 */
abstract class NodeBackedTest {

    /** Storage-node properties for the class's node, each {@code key=value}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface NodeConfig {

        String[] value();
    }

    protected static StorageNodeProcess node;

    @BeforeAll
    static void startNode(TestInfo test) {
        Map<String, String> config = new LinkedHashMap<>();
        NodeConfig declared = test.getTestClass().map(c -> c.getAnnotation(NodeConfig.class)).orElse(null);
        for (String entry : declared == null ? new String[0] : declared.value()) {
            int eq = entry.indexOf('=');
            config.put(entry.substring(0, eq), entry.substring(eq + 1));
        }
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
