package io.promptcache.index.api;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.quarkus.test.junit.QuarkusTest;

import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_BYTES;
import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_TOKENS;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

/**
 * A conversation whose objects live on a full node (no eviction candidates: the GC is away, as here where none
 * runs) goes on on a node with room: its next turn is stored whole there instead of being refused by the full node.
 */
@QuarkusTest
class FullNodeContinuationTest extends OwnNodesTest {

    private static final long SMALL = 256 << 10;

    @Test
    void shouldStoreTheNextTurnWholeOnANodeWithRoomWhenItsParentsNodeIsFull() {
        // Given: turn 1 and five other prompts on a node of 256 KiB, which leaves it 16 KiB of room
        ServiceHealthContract.awaitReady();
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        try (StorageNodeProcess small = StorageNodeProcess.start(bootstrap, Map.of(
                "promptcache.storage.capacity-bytes", Long.toString(SMALL),
                "promptcache.storage.tier.ram-capacity-bytes", Long.toString(SMALL)))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> writable().equals(List.of(small.nodeId())));
            String ns = Api.namespace("full-node-" + small.nodeId());
            int[] turn1 = Api.tokens(10 * BLOCK_TOKENS, 1);
            String first = Api.store(ns, turn1, BLOCK_BYTES, Api.randomBytes(10 * BLOCK_BYTES, 2)).statusCode(201)
                    .body("node", equalTo(small.nodeId())).extract().path("objectId");
            for (int i = 0; i < 5; i++) {
                Api.store(ns, Api.tokens(10 * BLOCK_TOKENS, 100 + i), BLOCK_BYTES,
                        Api.randomBytes(10 * BLOCK_BYTES, 200 + i)).statusCode(201);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.known(small.nodeId()).getUsedBytes() >= 6L * 10
                    * BLOCK_BYTES);
            try (StorageNodeProcess roomy = StorageNodeProcess.start(bootstrap, Map.of())) {
                await().atMost(Duration.ofSeconds(30)).until(() -> writable().contains(roomy.nodeId()));
                int[] turn2 = ContinuationStoreTest.extend(turn1, 16 * BLOCK_TOKENS, 3);
                byte[] whole = Api.randomBytes(16 * BLOCK_BYTES, 4);

                // When: turn 2 continues turn 1, sending only its 6 new blocks (24 KiB: no room on turn 1's node)
                given().contentType(StoreResource.STORE_FRAMED)
                        .body(Api.framed(ContinuationStoreTest.head(turn2, 10, first),
                                Arrays.copyOfRange(whole, 10 * BLOCK_BYTES, whole.length)))
                        .post("/v1/namespaces/" + ns + "/objects").then()
                        // Then: the engine is asked for the whole prompt
                        .statusCode(409).body("error", equalTo("ContinuationUnavailable"));

                // and the whole prompt is stored on the node with room, not continued on the full one
                Api.store(ns, turn2, BLOCK_BYTES, whole).statusCode(201).body("node", equalTo(roomy.nodeId()))
                        .body("continues", nullValue());
                Api.lookup(ns, turn2).statusCode(200).body("hit", equalTo(true)).body("blocks", equalTo(16))
                        .body("node", equalTo(roomy.nodeId()));
            }
        }
    }
}
