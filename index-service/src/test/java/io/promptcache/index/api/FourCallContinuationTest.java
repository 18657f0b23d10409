package io.promptcache.index.api;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture.NodeConfig;
import io.promptcache.schema.node.PrefixedPut;
import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A node that does not take prefixed PUTs (one that predates them, or has them off) says so in its heartbeats, and
 * index-service continues on it with the four multipart calls; a prefixed PUT sent to it anyway is refused, not
 * stored as the body alone.
 */
@QuarkusTest
@NodeConfig("promptcache.storage.prefix-puts=false")
class FourCallContinuationTest extends NodeBackedTest {

    private static final int BLOCK_BYTES = ContinuationStoreTest.BLOCK_BYTES;
    private static final int BLOCK_TOKENS = ContinuationStoreTest.BLOCK_TOKENS;

    @Test
    void shouldContinueWithTheFourMultipartCallsOnANodeWithoutPrefixedPuts() throws Exception {
        // Given: turn 1 of a conversation
        String ns = Api.namespace("four-call-model");
        int[] turn1 = Api.tokens(10 * BLOCK_TOKENS, 41);
        byte[] kv1 = Api.randomBytes(10 * BLOCK_BYTES, 42);
        String first = Api.store(ns, turn1, BLOCK_BYTES, kv1).statusCode(201).extract().path("objectId");
        NodeCalls calls = NodeCalls.of(node);
        // When: turn 2, the engine sending only its new blocks
        int[] turn2 = ContinuationStoreTest.extend(turn1, 14 * BLOCK_TOKENS, 43);
        byte[] new2 = Api.randomBytes(4 * BLOCK_BYTES, 44);
        String second = given().contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(ContinuationStoreTest.head(turn2, 10, first), new2))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201).body("continues", equalTo(first))
                .extract().path("objectId");
        // Then: four calls, no PUT, and the hit reads turn 1's bytes then turn 2's
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(calls.since())
                .isEqualTo(new NodeCalls(0, 1, 1, 1, 1)));
        assertThat(ContinuationStoreTest.hitBytes(ns, turn2, second, 14))
                .isEqualTo(ContinuationStoreTest.concat(kv1, new2));
    }

    @Test
    void shouldRefuseAPrefixedPutItDoesNotTake() {
        try (S3Client s3 = S3Client.builder().endpointOverride(java.net.URI.create(node.endpoint()))
                .forcePathStyle(true).region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create()).build()) {
            s3.createBucket(b -> b.bucket("four-call"));
            s3.putObject(b -> b.bucket("four-call").key("parent"), RequestBody.fromBytes(new byte[100]));
            assertThatThrownBy(() -> s3.putObject(b -> b.bucket("four-call").key("child").overrideConfiguration(o -> o
                    .putHeader(PrefixedPut.FROM, "four-call/parent").putHeader(PrefixedPut.BYTES, "50")),
                    RequestBody.fromBytes(new byte[10]))).isInstanceOfSatisfying(S3Exception.class,
                            e -> assertThat(e.statusCode()).isEqualTo(501));
            assertThatThrownBy(() -> s3.headObject(b -> b.bucket("four-call").key("child")))
                    .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
        }
    }
}
