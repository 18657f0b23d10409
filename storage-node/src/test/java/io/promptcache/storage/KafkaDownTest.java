package io.promptcache.storage;

import java.net.URL;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/** With no Kafka reachable at all, the node stores and serves objects and reports ready. */
@QuarkusTest
@TestProfile(KafkaDownTest.NoKafka.class)
class KafkaDownTest {

    @TestHTTPResource("/")
    URL endpoint;

    @Test
    void shouldServeS3WithoutKafka() throws Exception {
        String bucket = "nokafka-" + UUID.randomUUID();
        io.promptcache.storage.s3.TestRequests.put(endpoint, bucket, "k", "bytes".getBytes());
        assertThat(io.promptcache.storage.s3.TestRequests.get(endpoint, bucket, "k")).isEqualTo("bytes");
        given().when().get("/q/health/ready").then().statusCode(200).body("status", equalTo("UP"));
    }

    /** A closed loopback port: every connection attempt is refused. */
    public static class NoKafka implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("kafka.bootstrap.servers", "127.0.0.1:1");
        }
    }
}
