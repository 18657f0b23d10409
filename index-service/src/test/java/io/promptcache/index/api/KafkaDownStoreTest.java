package io.promptcache.index.api;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.OwnBrokers;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

/**
 * Kafka goes away (its own broker, stopped after a first store succeeded): the stored prompt still hits once every
 * heartbeat has stopped (the index tells a stalled feed from dead nodes: the node answers its probe), a store fails
 * with 503 + Retry-After within the Kafka timeout, nothing is advertised, and the bytes it already PUT are deleted
 * from the node before the answer (issue 67: a store that cannot be registered leaves nothing behind).
 */
@QuarkusTest
@TestProfile(KafkaDownStoreTest.OwnBroker.class)
class KafkaDownStoreTest {

    @Test
    void shouldFailTheStoreAndLeaveNoBytesWhenKafkaIsDown() throws Exception {
        ServiceHealthContract.awaitReady();
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        try (StorageNodeProcess node = StorageNodeProcess.start(bootstrap, Map.of())) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                    .statusCode(200));
            String ns = Api.namespace("kafka-down-model");
            int[] stored = Api.tokens(4 * 16, 1);
            Api.store(ns, stored, 100, new byte[400]).statusCode(201);

            OwnBroker.stop();
            // past the node's liveness window (3 heartbeats of 500 ms): every heartbeat stopped at once
            Thread.sleep(3_000);
            Api.lookup(ns, stored).statusCode(200).body("hit", equalTo(true)).body("node", equalTo(node.nodeId()));
            int[] prompt = Api.tokens(8 * 16, 2);
            long start = System.nanoTime();
            Api.store(ns, prompt, 100, Api.randomBytes(800, 3)).statusCode(503)
                    .header("Retry-After", notNullValue()).body("error", equalTo("KafkaUnavailable"))
                    .body("message", containsString("Kafka did not acknowledge its records in time"))
                    .body("message", containsString("its bytes were deleted from its nodes"));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
            Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));

            try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(node.endpoint()))
                    .region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .forcePathStyle(true).build()) {
                assertThat(s3.listObjectsV2(b -> b.bucket("promptcache-kv").prefix(ns + "/")).contents())
                        .as("the stored object only: the failed store's bytes are gone").hasSize(1)
                        .extracting(S3Object::size).containsExactly(400L);
            }
        }
    }

    /** The service on a broker of its own, so the test can stop it. */
    public static class OwnBroker implements QuarkusTestProfile {

        private static final String NAME = "kafka-down-store-test";

        static void stop() throws Exception {
            OwnBrokers.stop(NAME);
        }

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kafka.bootstrap.servers", OwnBrokers.bootstrap(NAME),
                    "promptcache.index.store.kafka-timeout", "3s",
                    "quarkus.kafka.health.enabled", "false");
        }
    }
}
