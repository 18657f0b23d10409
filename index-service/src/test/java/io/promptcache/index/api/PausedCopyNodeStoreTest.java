package io.promptcache.index.api;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeProcess;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_TOKENS;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Every node call bounded, with two copies (issue 66): a store written to two nodes at once, one of which was paused
 * (SIGSTOP), gives the paused copy up once it has taken no byte for the write stall (5 s) and is stored on the other
 * alone, within its bound, instead of waiting for the paused node (which held every store whose copies included it);
 * and a load through the index whose first copy's node died is served by the other copy at once.
 */
@QuarkusTest
@TestProfile(PausedCopyNodeStoreTest.TwoCopies.class)
class PausedCopyNodeStoreTest extends OwnNodesTest {

    private static final Duration BOUND = Duration.ofSeconds(12);

    @Test
    void shouldStoreOnTheLiveCopyWithinItsBoundWhenTheOtherCopysNodeIsPaused() throws Exception {
        try (StorageNodeProcess live = startNode(Map.of()); StorageNodeProcess paused = startNode(Map.of())) {
            awaitWritable(live, paused);
            String ns = Api.namespace("paused-copy-" + paused.nodeId());
            paused.signal("STOP");
            try {
                // When: a big store, whose two copies go to both nodes
                int[] big = Api.tokens(BIG / (1 << 20) * BLOCK_TOKENS, 1);
                Timed store = storeBig(ns, big);

                // Then: stored on the live copy within the bound; found there
                System.out.printf("store with a paused copy node: %s after %d ms%n", store.outcome(), store.took()
                        .toMillis());
                assertThat(store.outcome()).startsWith("201 ").contains("\"node\":\"" + live.nodeId() + "\"");
                assertThat(store.took()).isLessThan(BOUND);
                Api.lookup(ns, big).body("hit", equalTo(true)).body("node", equalTo(live.nodeId()));
            } finally {
                paused.signal("CONT");
            }
        }
    }

    @Test
    void shouldLoadFromTheOtherCopyAtOnceWhenTheFirstCopysNodeDies() {
        try (StorageNodeProcess a = startNode(Map.of()); StorageNodeProcess b = startNode(Map.of())) {
            awaitWritable(a, b);
            // Given: an object in two copies, read first from its first copy's node
            String ns = Api.namespace("copy-failover-" + a.nodeId());
            int[] prompt = Api.tokens(4 * BLOCK_TOKENS, 5);
            byte[] kv = Api.randomBytes(4 * 4096, 6);
            String objectId = Api.store(ns, prompt, 4096, kv).statusCode(201).extract().path("objectId");
            String first = Api.lookup(ns, prompt).body("hit", equalTo(true)).extract().path("node");

            // When: that node dies, before its heartbeats lapse (the index still takes it for live)
            (first.equals(a.nodeId()) ? a : b).kill();

            // Then: the load through the index is served by the other copy, at once, whole
            byte[] loaded = given().get("/v1/objects/" + objectId).then().statusCode(200).extract().asByteArray();
            assertThat(loaded).isEqualTo(kv);
        }
    }

    public static class TwoCopies implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.store.replicas", "2", "promptcache.index.body-idle-timeout", "30s");
        }
    }
}
