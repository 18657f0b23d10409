package io.promptcache.index.api;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.proto.PrefixEntry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

/**
 * Continuation stores on the real broker and a real storage node (its own process): a conversation's next turn
 * stores only its new blocks, on the node of the object it continues, and the lookup of the longer prompt hits every
 * block with one range GET that returns the earlier turn's bytes followed by the new ones.
 */
@QuarkusTest
class ContinuationStoreTest extends NodeBackedTest {

    /** Above the node's 16 KiB inline threshold from 5 blocks on: inline bodies are copied, not shared. */
    static final int BLOCK_BYTES = 4096;
    static final int BLOCK_TOKENS = 16;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Inject
    ReplicaStores stores;

    @Test
    void shouldStoreOnlyTheNewBlocksOfATurnThatContinuesALiveObject() throws Exception {
        // Given: turn 1 of a conversation, 10 blocks
        String ns = Api.namespace("continuation-model");
        int[] turn1 = Api.tokens(10 * BLOCK_TOKENS + 3, 1);
        byte[] kv1 = Api.randomBytes(10 * BLOCK_BYTES, 2);
        String first = Api.store(ns, turn1, BLOCK_BYTES, kv1).statusCode(201).body("continues", nullValue())
                .extract().path("objectId");
        long used = node.usedBytes();
        double records = Api.counter("promptcache_store_records_total");
        double blocks = Api.counter("promptcache_store_written_blocks_total");
        NodeCalls calls = NodeCalls.of(node);
        // When: turn 2 extends it by 6 blocks and the engine sends only those (fromBlock 10)
        int[] turn2 = extend(turn1, 16 * BLOCK_TOKENS, 3);
        byte[] new2 = Api.randomBytes(6 * BLOCK_BYTES, 4);
        String second = given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head(turn2, 10, first), new2))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201).body("continues", equalTo(first))
                .body("sharedBytes", equalTo(10 * BLOCK_BYTES)).body("blocks", equalTo(16))
                .body("bytes", equalTo(16 * BLOCK_BYTES)).body("node", equalTo(node.nodeId())).extract()
                .path("objectId");
        // Then: only the new bytes were written, and published: its record alone, listing the keys of its 6 new
        // blocks (every replica derives their entries from it); one range GET returns turn 1's bytes then turn 2's
        assertThat(node.usedBytes() - used).isEqualTo(6L * BLOCK_BYTES);
        assertThat(Api.counter("promptcache_store_records_total") - records).isEqualTo(1);
        assertThat(Api.counter("promptcache_store_written_blocks_total") - blocks).isEqualTo(6);
        // in one call to the node: a prefixed PUT (the node says it takes them), none of the multipart calls
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(calls.since())
                .isEqualTo(new NodeCalls(1, 0, 0, 0, 0)));
        // its record lists the keys of those 6 blocks, and the replica's PrefixMap derived their entries from it
        PrefixChain chain = PrefixChain.ofTokens(NamespaceId.parse(ns), HashAlgorithm.fromWireName(given()
                .get("/v1/namespaces/" + ns).then().statusCode(200).extract().path("hashAlgorithm")), BLOCK_TOKENS,
                turn2);
        await().atMost(Duration.ofSeconds(10)).until(() -> stores.prefix(chain.key(16)) != null
                && stores.prefix(chain.key(16)).getFromRecords());
        assertThat(WrittenKeys.keys(stores.object(ObjectId.parse(second)))).containsExactlyElementsOf(IntStream
                .rangeClosed(11, 16).mapToObj(chain::key).toList());
        assertThat(WrittenKeys.fromRecord(stores.object(ObjectId.parse(second)))).isTrue();
        PrefixEntry eleventh = stores.prefix(chain.key(11));
        assertThat(eleventh.getObjectId()).isEqualTo(second);
        assertThat(eleventh.getBlocks()).isEqualTo(11);
        assertThat(eleventh.getUsableBytes()).isEqualTo(11L * BLOCK_BYTES);
        assertThat(stores.prefix(chain.key(10)).getObjectId()).as("a shared block's key names its writer")
                .isEqualTo(first);
        byte[] expected2 = concat(kv1, new2);
        assertThat(hitBytes(ns, turn2, second, 16)).isEqualTo(expected2);
        assertThat(hitBytes(ns, Arrays.copyOf(turn2, 12 * BLOCK_TOKENS), second, 12))
                .isEqualTo(Arrays.copyOf(expected2, 12 * BLOCK_BYTES));

        // When: turn 3 (2 more blocks) is sent whole: the index still stores only what it lacks
        int[] turn3 = extend(turn2, 18 * BLOCK_TOKENS, 5);
        byte[] expected3 = concat(expected2, Api.randomBytes(2 * BLOCK_BYTES, 6));
        long beforeTurn3 = node.usedBytes();
        NodeCalls beforeThird = NodeCalls.of(node);
        String third = Api.store(ns, turn3, BLOCK_BYTES, expected3).statusCode(201).body("continues", equalTo(second))
                .body("sharedBytes", equalTo(16 * BLOCK_BYTES)).extract().path("objectId");
        assertThat(node.usedBytes() - beforeTurn3).isEqualTo(2L * BLOCK_BYTES);
        // sent whole, it may fall back to a whole store if the copy fails: the four multipart calls, copy first
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(beforeThird.since())
                .isEqualTo(new NodeCalls(0, 1, 1, 1, 1)));
        assertThat(hitBytes(ns, turn3, third, 18)).isEqualTo(expected3);

        // and the earlier turns can go: the latest still reads whole, and turn 1's prompt, whose keys name the
        // deleted object, is served by the continuations that share its bytes
        given().delete("/v1/objects/" + first).then().statusCode(202);
        assertThat(hitBytes(ns, turn3, third, 18)).isEqualTo(expected3);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> Api.lookup(ns, turn1).statusCode(200)
                .body("objectId", not(equalTo(first))));
        assertThat(hitBytes(ns, turn1, null, 10)).isEqualTo(kv1);
        // when turn 3 goes too, turn 2 serves turn 1's and its own blocks
        given().delete("/v1/objects/" + third).then().statusCode(202);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> Api.lookup(ns, turn3).statusCode(200)
                .body("objectId", equalTo(second)));
        assertThat(hitBytes(ns, turn3, second, 16)).isEqualTo(expected2);
        assertThat(hitBytes(ns, turn1, second, 10)).isEqualTo(kv1);
    }

    @Test
    void shouldContinueInTwoSteps() throws Exception {
        // Given
        String ns = Api.namespace("continuation-two-step");
        int[] turn1 = Api.tokens(4 * BLOCK_TOKENS, 11);
        byte[] kv1 = Api.randomBytes(4 * BLOCK_BYTES, 12);
        String first = Api.store(ns, turn1, BLOCK_BYTES, kv1).statusCode(201).extract().path("objectId");
        int[] turn2 = extend(turn1, 7 * BLOCK_TOKENS, 13);
        byte[] new2 = Api.randomBytes(3 * BLOCK_BYTES, 14);
        String request = "{\"tokens\":" + Arrays.toString(turn2).replace(" ", "") + ",\"layout\":{\"bytesPerBlock\":"
                + BLOCK_BYTES + "}}";
        // When: the reservation says from which block to upload
        ExtractableResponse<Response> reservation = given().contentType(ContentType.JSON).body(request)
                .post("/v1/namespaces/" + ns + "/reservations").then().statusCode(200)
                .body("deduplicated", equalTo(false)).body("fromBlock", equalTo(4)).body("continues", equalTo(first))
                .body("bytes", equalTo(3 * BLOCK_BYTES)).extract();
        HttpResponse<String> put = HTTP.send(HttpRequest.newBuilder(URI.create(reservation.path("uploadUrl")))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(new2)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(200);
        String commit = request.substring(0, request.length() - 1) + ",\"node\":\"" + reservation.path("node")
                + "\",\"fromBlock\":4,\"continues\":\"" + first + "\",\"uploadId\":\"" + reservation.path("uploadId")
                + "\"}";
        String second = given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath"))
                .then().statusCode(201).body("continues", equalTo(first)).extract().path("objectId");
        // Then
        assertThat(second).isEqualTo(reservation.path("objectId"));
        assertThat(hitBytes(ns, turn2, second, 7)).isEqualTo(concat(kv1, new2));
        given().contentType(ContentType.JSON).body(commit).post(reservation.<String> path("commitPath")).then()
                .statusCode(200).body("deduplicated", equalTo(true)).body("continues", equalTo(first));
    }

    @Test
    void shouldAskForTheWholePromptWhenNothingHoldsTheSharedBlocks() {
        String ns = Api.namespace("continuation-gone");
        int[] prompt = Api.tokens(5 * BLOCK_TOKENS, 21);
        double unavailable = storesCounted("unavailable");
        double failed = storesCounted("failed");
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head(prompt, 3, null), Api.randomBytes(2
                * BLOCK_BYTES, 22))).post("/v1/namespaces/" + ns + "/objects").then().statusCode(409)
                .body("error", equalTo("ContinuationUnavailable"));
        assertThat(storesCounted("unavailable")).as("a 409 is counted as such, not as a failure")
                .isEqualTo(unavailable + 1);
        assertThat(storesCounted("failed")).isEqualTo(failed);
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head(prompt, 5, null), new byte[0]))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(400);
        Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));
    }

    @Test
    void shouldAskForTheWholePromptWhenTheSharedBytesWentWhileTheNewOnesUploaded() throws Exception {
        // Given: turn 1 stored, then its bytes deleted on the node behind the index's back
        String ns = Api.namespace("continuation-copy-fails");
        int[] turn1 = Api.tokens(6 * BLOCK_TOKENS, 41);
        try (S3Client s3 = nodeClient()) {
            String first = storedThenDeleted(s3, ns, turn1, 42);

            // When: turn 2 sends only its new blocks (the copy of the shared ones runs beside their upload, and fails)
            int[] turn2 = extend(turn1, 8 * BLOCK_TOKENS, 43);
            given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head(turn2, 6, first),
                    Api.randomBytes(2 * BLOCK_BYTES, 44))).post("/v1/namespaces/" + ns + "/objects").then()
                    .statusCode(409).body("error", equalTo("ContinuationUnavailable"));

            // Then: nothing of turn 2 is advertised, and its upload was aborted (nothing left on the node)
            Api.lookup(ns, turn2).statusCode(200).body("objectId", equalTo(first)).body("blocks", equalTo(6));
            assertThat(s3.listMultipartUploads(b -> b.bucket("promptcache-kv").prefix(ns + "/")).uploads())
                    .isEmpty();
            assertThat(s3.listObjectsV2(b -> b.bucket("promptcache-kv").prefix(ns + "/")).contents()).isEmpty();
        }
    }

    @Test
    void shouldAskForTheWholePromptWhenTheParentWentAndTheNewBytesAreMoreThanTheNodeDrains() {
        // Given: turn 1 stored, then deleted on the node behind the index's back (as the node deletes for room)
        String ns = Api.namespace("continuation-gone-long");
        int[] turn1 = Api.tokens(6 * BLOCK_TOKENS, 51);
        try (S3Client s3 = nodeClient()) {
            String first = storedThenDeleted(s3, ns, turn1, 52);

            // When: turn 2's new blocks are 4 MiB, past the 1 MiB the node reads of a body it refused before it
            // closes the connection (its 404 can be lost with the connection: the index asks the node about the
            // parent instead of calling the node failed)
            int newBlocks = 1024;
            int[] turn2 = extend(turn1, (6 + newBlocks) * BLOCK_TOKENS, 53);
            double failed = storesCounted("failed");
            for (int attempt = 0; attempt < 3; attempt++) {
                given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head(turn2, 6, first),
                        Api.randomBytes(newBlocks * BLOCK_BYTES, 54 + attempt))).post("/v1/namespaces/" + ns
                                + "/objects")
                        .then().statusCode(409).body("error", equalTo("ContinuationUnavailable"));
            }

            // Then: never a node failure, and nothing of turn 2 left on the node
            assertThat(storesCounted("failed")).isEqualTo(failed);
            assertThat(s3.listMultipartUploads(b -> b.bucket("promptcache-kv").prefix(ns + "/")).uploads())
                    .isEmpty();
            assertThat(s3.listObjectsV2(b -> b.bucket("promptcache-kv").prefix(ns + "/")).contents()).isEmpty();
        }
    }

    @Test
    void shouldMarkPinnedObjectsOnTheNodeSoItNeverDeletesThemOnItsOwn() throws Exception {
        // Given: a pinned prompt (a one-shot PUT), and a pinned next turn of an unpinned prompt (a multipart upload)
        String ns = Api.namespace("continuation-pinned");
        int[] pinnedPrompt = Api.tokens(6 * BLOCK_TOKENS, 31);
        String base = Api.head(pinnedPrompt, BLOCK_BYTES, 0);
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(base.substring(0, base.length() - 1)
                + ",\"pinned\":true}", Api.randomBytes(6 * BLOCK_BYTES, 32)))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201);
        int[] turn1 = Api.tokens(6 * BLOCK_TOKENS, 35);
        String first = Api.store(ns, turn1, BLOCK_BYTES, Api.randomBytes(6 * BLOCK_BYTES, 36)).statusCode(201)
                .extract().path("objectId");
        int[] turn2 = extend(turn1, 8 * BLOCK_TOKENS, 33);
        String head2 = head(turn2, 6, first);
        given().contentType(StoreResource.STORE_FRAMED).body(Api.framed(head2.substring(0, head2.length() - 1)
                + ",\"pinned\":true}", Api.randomBytes(2 * BLOCK_BYTES, 34)))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201).body("continues", equalTo(first));
        // Then: the pinned ones carry the node's pin marker, the unpinned one does not
        assertThat(pinMarker(ns, pinnedPrompt)).hasValue("true");
        assertThat(pinMarker(ns, turn2)).hasValue("true");
        assertThat(pinMarker(ns, turn1)).isEmpty();
    }

    /** The pin marker the node returns on a HEAD of the object a lookup of {@code prompt} names. */
    private static Optional<String> pinMarker(String ns, int[] prompt) throws Exception {
        String location = Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(true)).extract()
                .path("location");
        HttpResponse<Void> head = HTTP.send(HttpRequest.newBuilder(URI.create(location)).method("HEAD",
                HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding());
        assertThat(head.statusCode()).isEqualTo(200);
        return head.headers().firstValue("x-amz-meta-" + NodeMarkers.PINNED);
    }

    static String head(int[] tokens, int fromBlock, String continues) {
        String base = Api.head(tokens, BLOCK_BYTES, 0);
        return base.substring(0, base.length() - 1) + ",\"fromBlock\":" + fromBlock
                + (continues == null ? "" : ",\"continues\":\"" + continues + "\"") + "}";
    }

    /** {@code prompt} followed by new tokens, {@code length} in all. */
    private S3Client nodeClient() {
        return S3Client.builder().endpointOverride(URI.create(node.endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(AnonymousCredentialsProvider.create()).forcePathStyle(true).build();
    }

    /** Stores {@code prompt} in {@code ns}, then deletes it on the node behind the index's back; its object id. */
    private static String storedThenDeleted(S3Client s3, String ns, int[] prompt, long seed) {
        String id = Api.store(ns, prompt, BLOCK_BYTES, Api.randomBytes(prompt.length / BLOCK_TOKENS * BLOCK_BYTES,
                seed)).statusCode(201).extract().path("objectId");
        s3.deleteObject(b -> b.bucket("promptcache-kv").key(ns + "/" + id));
        return id;
    }

    static int[] extend(int[] prompt, int length, long seed) {
        int[] longer = Arrays.copyOf(prompt, length);
        int[] fresh = Api.tokens(length, seed);
        System.arraycopy(fresh, prompt.length, longer, prompt.length, length - prompt.length);
        return longer;
    }

    /** The bytes one range GET returns for the lookup of {@code prompt}, after checking the hit (any object: null). */
    static byte[] hitBytes(String ns, int[] prompt, String objectId, int blocks) throws Exception {
        ExtractableResponse<Response> hit = Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(true))
                .body("blocks", equalTo(blocks)).extract();
        if (objectId != null) {
            assertThat(hit.<String> path("objectId")).isEqualTo(objectId);
        }
        HttpResponse<byte[]> response = HTTP.send(HttpRequest.newBuilder(URI.create(hit.path("location")))
                .header("Range", hit.path("range")).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(206);
        return response.body();
    }

    static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    /** The stores the index counted with {@code outcome} (and no reason given) so far. */
    private static double storesCounted(String outcome) {
        Matcher count = Pattern.compile("(?m)^promptcache_store_seconds_count\\{outcome=\"" + outcome
                + "\",reason=\"unspecified\"\\} (\\S+)$").matcher(given().get("/q/metrics").asString());
        return count.find() ? Double.parseDouble(count.group(1)) : 0;
    }
}
