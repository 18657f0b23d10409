package io.promptcache.index.api;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.index.SignedStorageProfile;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Continuation stores against a storage node that checks SigV4: the index signs CreateMultipartUpload,
 * UploadPartCopy, UploadPart and Complete; the two-step form hands the engine a presigned UploadPart URL, and the
 * lookup a presigned GET URL; the unsigned URL is refused by the node.
 */
@QuarkusTest
@TestProfile(SignedStorageProfile.class)
@StorageNodeFixture.NodeConfig({SignedStorageProfile.NODE_AUTH, SignedStorageProfile.NODE_CREDENTIALS})
class SignedContinuationTest extends NodeBackedTest {

    private static final int BLOCK_BYTES = 4096;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Test
    void shouldContinueThroughPresignedUrlsOnASigV4Node() throws Exception {
        // Given
        ServiceHealthContract.awaitReady();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                .statusCode(200));
        String ns = Api.namespace("signed-continuation");
        int[] turn1 = Api.tokens(6 * 16, 41);
        byte[] kv1 = Api.randomBytes(6 * BLOCK_BYTES, 42);
        String first = Api.store(ns, turn1, BLOCK_BYTES, kv1).statusCode(201).extract().path("objectId");
        int[] turn2 = Arrays.copyOf(turn1, 9 * 16);
        System.arraycopy(Api.tokens(9 * 16, 43), 6 * 16, turn2, 6 * 16, 3 * 16);
        byte[] new2 = Api.randomBytes(3 * BLOCK_BYTES, 44);
        String request = "{\"tokens\":" + Arrays.toString(turn2).replace(" ", "") + ",\"layout\":{\"bytesPerBlock\":"
                + BLOCK_BYTES + "}}";

        // When: a two-step continuation, the new bytes PUT to the presigned part URL
        ExtractableResponse<Response> reservation = given().contentType(ContentType.JSON).body(request)
                .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(200).body("fromBlock", equalTo(6))
                .body("continues", equalTo(first)).extract();
        String url = reservation.path("uploadUrl");
        assertThat(url).contains("X-Amz-Signature=").contains("partNumber=2");
        String unsigned = url.substring(0, url.indexOf('?')) + "?partNumber=2&uploadId=" + reservation.path("uploadId");
        assertThat(put(unsigned, new2)).as("the node refuses an unsigned part").isEqualTo(403);
        assertThat(put(url, new2)).isEqualTo(200);
        String commit = request.substring(0, request.length() - 1) + ",\"node\":\"" + reservation.path("node")
                + "\",\"fromBlock\":6,\"continues\":\"" + first + "\",\"uploadId\":\"" + reservation.path("uploadId")
                + "\"}";
        String second = given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath"))
                .then().statusCode(201).body("continues", equalTo(first)).extract().path("objectId");

        // Then: the presigned GET of the lookup returns turn 1's bytes then turn 2's
        ExtractableResponse<Response> hit = Api.lookup(ns, turn2).statusCode(200).body("objectId", equalTo(second))
                .body("blocks", equalTo(9)).extract();
        String location = hit.path("location");
        assertThat(location).contains("X-Amz-Signature=");
        HttpResponse<byte[]> get = HTTP.send(HttpRequest.newBuilder(URI.create(location))
                .header("Range", hit.path("range")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(get.statusCode()).isEqualTo(206);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(kv1);
        expected.writeBytes(new2);
        assertThat(get.body()).isEqualTo(expected.toByteArray());
    }

    private static int put(String url, byte[] body) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).PUT(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
