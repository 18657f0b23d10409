package io.promptcache.index.api;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;

/**
 * A replica whose stores are not restored yet (here: Kafka Streams waits for a topic that never comes) answers
 * 503 + Retry-After, never 500, and is not ready.
 */
@QuarkusTest
@TestProfile(RestoringTest.NeverRestored.class)
class RestoringTest {

    @Test
    void shouldAnswer503WithRetryAfterWhileRestoring() {
        given().contentType(ContentType.JSON).body(Map.of("tokens", new int[64]))
                .post("/v1/namespaces/0123456789abcdef0123456789abcdef/lookup").then().statusCode(503)
                .header("Retry-After", notNullValue()).body("error", equalTo("Restoring"));
        given().contentType(LookupRoute.TOKENS_BINARY).body(new byte[64])
                .post("/v1/namespaces/0123456789abcdef0123456789abcdef/lookup").then().statusCode(503);
        given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "m", "dtype", "bf16", "blockSize", 16))
                .post("/v1/namespaces").then().statusCode(503).header("Retry-After", notNullValue());
        given().get("/q/health/ready").then().statusCode(503);
    }

    public static class NeverRestored implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.kafka-streams.topics", "promptcache.never-created");
        }
    }
}
