package io.promptcache.index.api;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.index.access.AccessSampler;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.node.NodeMarkers;
import io.quarkus.arc.ClientProxy;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * The engine's whole path on the real broker and a real storage node (its own process): store, lookup, one range
 * GET of exactly the stored bytes of the matched blocks; shared prefixes, namespaces, dedup, invalidate, delete,
 * the two-step store, the load proxy and store-side bad input.
 */
@QuarkusTest
class StoreLookupTest extends NodeBackedTest {

    private static final int BLOCK_BYTES = 1024;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Inject
    AccessSampler access;

    @Test
    void shouldHitWithTheRangeOfTheStoredBlocksAndServeExactlyThoseBytes() throws Exception {
        String ns = Api.namespace("path-model");
        int[] prompt = Api.tokens(20 * 16 + 5, 11);
        byte[] kv = Api.randomBytes(20 * BLOCK_BYTES, 12);
        String objectId = Api.store(ns, prompt, BLOCK_BYTES, kv).statusCode(201).body("deduplicated", equalTo(false))
                .body("blocks", equalTo(20)).body("tokens", equalTo(320)).body("node", equalTo(node.nodeId()))
                .extract().path("objectId");

        ExtractableResponse<Response> hit = Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(true))
                .body("objectId", equalTo(objectId)).body("blocks", equalTo(20)).body("tokens", equalTo(320))
                .body("usableBytes", equalTo(20 * BLOCK_BYTES)).body("range", equalTo("bytes=0-20479")).extract();
        assertThat(rangeGet(hit.path("location"), hit.path("range"))).isEqualTo(kv);

        int[] longer = Arrays.copyOf(prompt, 40 * 16);
        System.arraycopy(Api.tokens(longer.length, 99), 12 * 16, longer, 12 * 16, longer.length - 12 * 16);
        ExtractableResponse<Response> shorter = Api.lookup(ns, longer).statusCode(200).body("hit", equalTo(true))
                .body("objectId", equalTo(objectId)).body("blocks", equalTo(12))
                .body("usableBytes", equalTo(12 * BLOCK_BYTES)).body("range", equalTo("bytes=0-12287")).extract();
        assertThat(rangeGet(shorter.path("location"), shorter.path("range")))
                .isEqualTo(Arrays.copyOf(kv, 12 * BLOCK_BYTES));

        byte[] binary = Api.binary(prompt);
        given().contentType(LookupRoute.TOKENS_BINARY).body(binary).post("/v1/namespaces/" + ns + "/lookup")
                .then().statusCode(200).body("objectId", equalTo(objectId)).body("blocks", equalTo(20));

        String otherModel = Api.namespace("path-model-other");
        Api.lookup(otherModel, prompt).statusCode(200).body("hit", equalTo(false));

        access.flush();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(access.published())
                .as("hits reach the access topic, aggregated").isPositive());
        given().get("/q/metrics").then().statusCode(200).body(containsString("promptcache_lookup_seconds_bucket"))
                .body(containsString("promptcache_lookup_hit_ratio{namespace=\"" + ns + "\"}"))
                .body(containsString("promptcache_advertise_visible_seconds_count"))
                .body(containsString("promptcache_store_seconds_count{outcome=\"stored\",reason=\"unspecified\"}"))
                .body(containsString("promptcache_lookup_handler_seconds_count"))
                .body(containsString("promptcache_global_store_unreadable_total"));
    }

    @Test
    void shouldStoreAndLookUpByTokenBytesAsByTokenIds() throws Exception {
        String ns = Api.namespace("token-bytes-model");
        int[] prompt = Api.tokens(12 * 16 + 3, 21);
        byte[] kv = Api.randomBytes(12 * BLOCK_BYTES, 22);
        String tokenBytes = Base64.getEncoder().encodeToString(Api.binary(prompt));
        String head = "{\"tokenBytes\":\"" + tokenBytes + "\",\"layout\":{\"bytesPerBlock\":" + BLOCK_BYTES + "}}";
        String objectId = given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head, kv))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201).body("blocks", equalTo(12))
                .body("tokens", equalTo(192)).extract().path("objectId");

        ExtractableResponse<Response> hit = Api.lookup(ns, prompt).statusCode(200).body("objectId", equalTo(objectId))
                .body("blocks", equalTo(12)).extract();
        assertThat(rangeGet(hit.path("location"), hit.path("range"))).isEqualTo(kv);
        given().contentType(ContentType.JSON).body("{\"tokenBytes\":\"" + tokenBytes + "\"}")
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).body("objectId", equalTo(objectId))
                .body("blocks", equalTo(12));
        Api.store(ns, prompt, BLOCK_BYTES, kv).statusCode(200).body("deduplicated", equalTo(true))
                .body("objectId", equalTo(objectId));

        String path = "/v1/namespaces/" + ns + "/lookup";
        given().contentType(ContentType.JSON).body("{\"tokenBytes\":\"AAAAAAA=\"}").post(path).then().statusCode(400)
                .body("message", containsString("multiple of 4"));
        given().contentType(ContentType.JSON).body("{\"tokenBytes\":\"AAAAAA==\",\"tokens\":[1]}").post(path).then()
                .statusCode(400).body("message", containsString("exactly one of"));
        given().contentType(ContentType.JSON).body("{\"tokenBytes\":\"not base64!\"}").post(path).then()
                .statusCode(400);
    }

    @Test
    void shouldStoreWithTheTokenIdsAfterTheHeadAsWithTokenBytes() throws Exception {
        String ns = Api.namespace("tokens-after-head-model");
        int[] prompt = Api.tokens(12 * 16 + 3, 23);
        byte[] kv = Api.randomBytes(12 * BLOCK_BYTES, 24);
        String layout = "\"layout\":{\"bytesPerBlock\":" + BLOCK_BYTES + "}";
        String objects = "/v1/namespaces/" + ns + "/objects";
        String objectId = given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokensAfterHead\":"
                + prompt.length + "," + layout + "}", concat(Api.binary(prompt), kv))).post(objects).then()
                .statusCode(201).body("blocks", equalTo(12)).body("tokens", equalTo(192)).extract().path("objectId");

        // the same prefix as the other forms name it, and the same bytes
        ExtractableResponse<Response> hit = Api.lookup(ns, prompt).statusCode(200).body("objectId", equalTo(objectId))
                .body("blocks", equalTo(12)).extract();
        assertThat(rangeGet(hit.path("location"), hit.path("range"))).isEqualTo(kv);
        String tokenBytes = Base64.getEncoder().encodeToString(Api.binary(prompt));
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokenBytes\":\"" + tokenBytes + "\","
                + layout + "}", kv)).post(objects).then().statusCode(200).body("deduplicated", equalTo(true))
                .body("objectId", equalTo(objectId));

        // bad counts, two forms at once, and the form outside the framed body
        int[] other = Api.tokens(4 * 16, 25);
        byte[] body = concat(Api.binary(other), new byte[4 * BLOCK_BYTES]);
        for (String count : new String[]{"0", "-1", String.valueOf(other.length + 4 * BLOCK_BYTES / 4 + 1)}) {
            given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokensAfterHead\":" + count + ","
                    + layout + "}", body)).post(objects).then().statusCode(400).body("error", equalTo("BadRequest"));
        }
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokensAfterHead\":10000000," + layout
                + "}", body)).post(objects).then().statusCode(413).body("error", equalTo("TooManyTokens"));
        for (String form : new String[]{"\"tokens\":[1]", "\"tokenBytes\":\"AAAAAA==\"", "\"blockHashes\":[\"ab\"]"}) {
            given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokensAfterHead\":" + other.length
                    + "," + form + "," + layout + "}", body)).post(objects).then().statusCode(400)
                    .body("message", containsString("exactly one of"));
        }
        given().contentType(ContentType.JSON).body("{\"tokensAfterHead\":64," + layout + "}")
                .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(400)
                .body("message", containsString("framed body"));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void shouldCountStoresByTheEngineSaveReasonAndRefuseAReasonThatIsNotOne() {
        String ns = Api.namespace("reason-model");
        String counted = "promptcache_store_seconds_count{outcome=\"stored\",reason=\"finish\"}";
        double before = Api.counter(counted);
        int[] prompt = Api.tokens(3 * 16, 41);
        String head = Api.head(prompt, BLOCK_BYTES, 0).replaceFirst("}$", ",\"reason\":\"finish\"}");
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head, Api.randomBytes(3 * BLOCK_BYTES, 42)))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201);
        assertThat(Api.counter(counted) - before).as("the store counted under its reason").isEqualTo(1);

        String bad = Api.head(Api.tokens(3 * 16, 43), BLOCK_BYTES, 0).replaceFirst("}$", ",\"reason\":\"lunch\"}");
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(bad, Api.randomBytes(3 * BLOCK_BYTES, 44)))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(400)
                .body("message", containsString("reason must be one of cold, continued, finish, evict, shutdown"));
        given().contentType(ContentType.JSON).body(bad.replace("\"lunch\"", "\"Cold\""))
                .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(400);
    }

    @Test
    void shouldCountOnlyAHitOfTheWholeObjectAsAUseOfIt() {
        // Given: an object of 20 blocks
        String ns = Api.namespace("use-model");
        int[] prompt = Api.tokens(20 * 16, 31);
        String objectId = Api.store(ns, prompt, BLOCK_BYTES, Api.randomBytes(20 * BLOCK_BYTES, 32)).statusCode(201)
                .extract().path("objectId");
        access.flush();
        // (holding the sampler's lock: its periodic flush, synchronized, cannot empty the window meanwhile)
        AccessSampler sampler = ClientProxy.unwrap(access);
        synchronized (sampler) {
            // When: a prompt that shares its first 12 blocks only (a partial hit: the engine continues it)
            int[] branch = Arrays.copyOf(prompt, 30 * 16);
            System.arraycopy(Api.tokens(branch.length, 33), 12 * 16, branch, 12 * 16, branch.length - 12 * 16);
            Api.lookup(ns, branch).statusCode(200).body("objectId", equalTo(objectId)).body("blocks", equalTo(12));
            // Then: not a use of the object (its continuation will be the fresh one)
            assertThat(sampler.pending(objectId)).isFalse();
            // and a hit of all 20 blocks is
            Api.lookup(ns, prompt).statusCode(200).body("objectId", equalTo(objectId)).body("blocks", equalTo(20));
            assertThat(sampler.pending(objectId)).isTrue();
        }
    }

    @Test
    void shouldDeduplicateAStoreThatALiveObjectCovers() {
        String ns = Api.namespace("dedup-model");
        int[] prompt = Api.tokens(8 * 16, 21);
        String first = Api.store(ns, prompt, 256, Api.randomBytes(8 * 256, 1)).statusCode(201).extract()
                .path("objectId");
        Api.store(ns, prompt, 256, Api.randomBytes(8 * 256, 2)).statusCode(200).body("deduplicated", equalTo(true))
                .body("objectId", equalTo(first));
        Api.store(ns, Arrays.copyOf(prompt, 5 * 16), 256, Api.randomBytes(5 * 256, 3)).statusCode(200)
                .body("objectId", equalTo(first));
    }

    @Test
    void shouldNeverReturnAnInvalidatedOrDeletedObject() throws Exception {
        String ns = Api.namespace("tombstone-model");
        int[] prompt = Api.tokens(6 * 16, 31);
        byte[] kv = Api.randomBytes(6 * 512, 32);
        String objectId = Api.store(ns, prompt, 512, kv).statusCode(201).extract().path("objectId");
        Api.lookup(ns, prompt).body("hit", equalTo(true));

        // an object that is on its node is not invalidated (checked with a HEAD): no caller evicts what is there
        given().post("/v1/objects/" + objectId + "/invalidate").then().statusCode(409)
                .body("error", equalTo("ObjectPresent"));
        Api.lookup(ns, prompt).statusCode(200).body("objectId", equalTo(objectId));

        // the owner deletes it: lookups miss at once, the bytes stay readable during the grace window
        given().delete("/v1/objects/" + objectId).then().statusCode(202).body("reason", equalTo("owner_delete"));
        Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));
        byte[] graceRead = given().header("Range", "bytes=0-511").get("/v1/objects/" + objectId).then()
                .statusCode(206).extract().asByteArray();
        assertThat(graceRead).as("readable during the grace window").isEqualTo(Arrays.copyOf(kv, 512));

        // stored again, then lost by its node: the engine's report invalidates it, once and idempotently
        String again = Api.store(ns, prompt, 512, kv).statusCode(201).extract().path("objectId");
        assertThat(again).isNotEqualTo(objectId);
        Api.lookup(ns, prompt).body("objectId", equalTo(again));
        HttpResponse<Void> lost = HTTP.send(HttpRequest.newBuilder(URI.create(node.endpoint() + "/promptcache-kv/"
                + ns + "/" + again)).DELETE().build(), HttpResponse.BodyHandlers.discarding());
        assertThat(lost.statusCode()).isEqualTo(204);
        given().post("/v1/objects/" + again + "/invalidate").then().statusCode(200)
                .body("state", equalTo("TOMBSTONED")).body("reason", equalTo("invalidated"));
        Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));
        given().post("/v1/objects/" + again + "/invalidate").then().statusCode(200);
    }

    @Test
    void shouldStoreInTwoStepsWithADirectPutToTheNode() throws Exception {
        String ns = Api.namespace("two-step-model");
        int[] prompt = Api.tokens(10 * 16, 41);
        byte[] kv = Api.randomBytes(10 * 2048, 42);
        Map<String, Object> description = Map.of("tokens", prompt, "layout", Map.of("bytesPerBlock", 2048),
                "priority", 3);
        ExtractableResponse<Response> reservation = given().contentType(ContentType.JSON).body(description)
                .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(200)
                .body("deduplicated", equalTo(false)).body("bytes", equalTo(kv.length)).extract();
        String objectId = reservation.path("objectId");
        Map<String, Object> commit = Map.of("tokens", prompt, "layout", Map.of("bytesPerBlock", 2048), "priority", 3,
                "node", reservation.path("node"));
        given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath")).then()
                .statusCode(409).body("error", equalTo("NotUploaded"));

        HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(URI.create(reservation.path("uploadUrl")))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(kv)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
        given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath")).then()
                .statusCode(201).body("objectId", equalTo(objectId));
        given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath")).then()
                .statusCode(200).body("deduplicated", equalTo(true));
        Api.lookup(ns, prompt).body("hit", equalTo(true)).body("objectId", equalTo(objectId));

        byte[] loaded = given().header("Range", "bytes=2048-4095").get("/v1/objects/" + objectId).then()
                .statusCode(206).header("Content-Range", equalTo("bytes 2048-4095/" + kv.length)).extract()
                .asByteArray();
        assertThat(loaded).isEqualTo(Arrays.copyOfRange(kv, 2048, 4096));
        assertThat(given().get("/v1/objects/" + objectId).then().statusCode(200).extract().asByteArray())
                .isEqualTo(kv);
        given().contentType(ContentType.JSON).body(description).post("/v1/namespaces/" + ns + "/reservations")
                .then().statusCode(200).body("deduplicated", equalTo(true)).body("objectId", equalTo(objectId));
    }

    @Test
    void shouldRefuseACommitLaterThanTwiceTheReservationExpiry() throws Exception {
        // Given: bytes PUT under the id of a reservation made 31 minutes ago (the expiry is 15 minutes); after twice
        // that the GC may sweep such bytes as an orphan (docs/architecture.md, "The orphan sweep deletes only proven
        // orphans")
        String ns = Api.namespace("late-commit-model");
        int[] prompt = Api.tokens(4 * 16, 61);
        byte[] old = ObjectId.generate().toBytes();
        long made = System.currentTimeMillis() - Duration.ofMinutes(31).toMillis();
        for (int i = 0; i < 6; i++) {
            old[i] = (byte) (made >>> (8 * (5 - i)));
        }
        ObjectId late = ObjectId.fromBytes(old);
        Map<String, Object> commit = Map.of("tokens", prompt, "layout", Map.of("bytesPerBlock", 2048), "node",
                node.nodeId());

        // When / Then: refused, nothing registered
        given().contentType(ContentType.JSON).body(commit)
                .post("/v1/namespaces/" + ns + "/reservations/" + late + "/commit").then().statusCode(409)
                .body("error", equalTo("ReservationExpired"));
        Api.lookup(ns, prompt).body("hit", equalTo(false));
    }

    @Test
    void shouldPinATwoStepStoreOnItsNodeWhenAskedOnly() throws Exception {
        String ns = Api.namespace("two-step-pinned-model");
        for (boolean pinned : new boolean[]{true, false}) {
            int[] prompt = Api.tokens(4 * 16, pinned ? 51 : 52);
            byte[] kv = Api.randomBytes(4 * 2048, 53);
            Map<String, Object> description = Map.of("tokens", prompt, "layout", Map.of("bytesPerBlock", 2048),
                    "pinned", pinned);
            ExtractableResponse<Response> reservation = given().contentType(ContentType.JSON).body(description)
                    .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(200).extract();
            HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(URI.create(reservation.path("uploadUrl")))
                    .PUT(HttpRequest.BodyPublishers.ofByteArray(kv)).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(put.statusCode()).as(put.body()).isEqualTo(200);
            Map<String, Object> commit = Map.of("tokens", prompt, "layout", Map.of("bytesPerBlock", 2048),
                    "pinned", pinned, "node", reservation.path("node"));
            given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath")).then()
                    .statusCode(201);

            // the node's own eviction never takes a pinned object: the marker it reads is on the object
            try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(node.endpoint()))
                    .region(Region.US_EAST_1).credentialsProvider(AnonymousCredentialsProvider.create())
                    .forcePathStyle(true).build()) {
                HeadObjectResponse head = s3.headObject(b -> b.bucket("promptcache-kv")
                        .key(ns + "/" + reservation.path("objectId")));
                assertThat(head.contentLength()).isEqualTo(kv.length);
                if (pinned) {
                    assertThat(head.metadata()).containsEntry(NodeMarkers.PINNED, "true");
                } else {
                    assertThat(head.metadata()).doesNotContainKey(NodeMarkers.PINNED);
                }
            }
            Api.lookup(ns, prompt).body("hit", equalTo(true)).body("objectId", equalTo(reservation.path("objectId")));
        }
    }

    @Test
    void shouldStoreAndLookUpByEngineBlockHashes() {
        String ns = Api.namespace("block-hash-model");
        List<String> hashes = List.of("0a0b", "1c1d", "2e2f", "3031");
        String head = "{\"blockHashes\":[\"0a0b\",\"1c1d\",\"2e2f\",\"3031\"],\"layout\":{\"blockEndOffsets\":"
                + "[100,250,300,1000]}}";
        String objectId = given().contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(head, Api.randomBytes(1000, 5))).post("/v1/namespaces/" + ns + "/objects").then()
                .statusCode(201).extract().path("objectId");
        given().contentType(ContentType.JSON).body(Map.of("blockHashes", List.of("0a0b", "1c1d", "ffff")))
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).body("objectId", equalTo(objectId))
                .body("blocks", equalTo(2)).body("usableBytes", equalTo(250));
        given().contentType(ContentType.JSON).body(Map.of("blockHashes", hashes))
                .post("/v1/namespaces/" + ns + "/lookup").then().body("usableBytes", equalTo(1000));
    }

    @Test
    void shouldRejectBadStoresWithoutStoringAnything() {
        String ns = Api.namespace("bad-store-model");
        String path = "/v1/namespaces/" + ns + "/objects";
        int[] prompt = Api.tokens(4 * 16, 51);
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(Api.head(prompt, 100, 0), new byte[399]))
                .post(path).then().statusCode(400).body("message", containsString("layout says 400"));
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokens\":[1,2]", new byte[10]))
                .post(path).then().statusCode(400).body("error", equalTo("MalformedJson"));
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokens\":[1,2,3]}", new byte[0]))
                .post(path).then().statusCode(400).body("message", containsString("one block"));
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokens\":" + Arrays.toString(prompt)
                + "}", new byte[0])).post(path).then().statusCode(400).body("message", containsString("layout"));
        given().contentType(StoreResource.STORE_FRAMED).body(new byte[]{(byte) 0xff, (byte) 0xff, 0, 0, 1}).post(path)
                .then().statusCode(400).body("message", containsString("uint32 LE"));
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed("{\"tokens\":" + Arrays.toString(prompt)
                + ",\"layout\":{\"blockEndOffsets\":[5,4,9,10]}}", new byte[10])).post(path).then().statusCode(400)
                .body("message", containsString("strictly increasing"));
        Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));
    }

    private static byte[] rangeGet(String location, String range) throws Exception {
        HttpResponse<byte[]> response = HTTP.send(HttpRequest.newBuilder(URI.create(location)).header("Range", range)
                .build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(206);
        return response.body();
    }
}
