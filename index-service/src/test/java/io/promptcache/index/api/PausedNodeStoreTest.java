package io.promptcache.index.api;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeProcess;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * Every node call bounded (issue 66): a store whose PUT reached a storage node that was then paused (SIGSTOP: it
 * accepts the connection and stops reading, as a wedged machine does) is abandoned once the node has taken no byte
 * of the body for the write stall (5 s), and answered at once, instead of waiting as long as the node is paused;
 * once the paused node is no longer heard from, stores go to the other node. The engine's body may be idle for as long
 * as the product ships (30 s, not the tests' 1 s): a body the index stops reading while a node does not take it is not
 * the engine's fault, and the bound must come from the node call.
 */
@QuarkusTest
@TestProfile(PausedNodeStoreTest.BodyIdleAsShipped.class)
class PausedNodeStoreTest extends OwnNodesTest {

    /** The write stall (5 s) and the answer: well under the minute a paused node stayed paused in the fault suite. */
    private static final Duration BOUND = Duration.ofSeconds(12);

    @Test
    void shouldAnswerAStoreToAPausedNodeWithinItsBoundThenStoreOnTheOtherNode() throws Exception {
        // Given: a node that takes the big object, and one too small for it
        try (StorageNodeProcess paused = startNode(Map.of());
                StorageNodeProcess small = startNode(Map.of("promptcache.storage.capacity-bytes",
                        Long.toString(16L << 20), "promptcache.storage.tier.ram-capacity-bytes",
                        Long.toString(16L << 20)))) {
            awaitWritable(paused, small);
            String ns = Api.namespace("paused-node-" + paused.nodeId());
            paused.signal("STOP");
            try {
                // When: a big store, which only the paused node has room for
                Timed store = storeBig(ns, Api.tokens(BIG / (1 << 20) * BLOCK_TOKENS, 1));

                // Then: refused within the bound, saying why
                System.out.printf("store to a paused node: %s after %d ms%n", store.outcome(), store.took()
                        .toMillis());
                assertThat(store.took()).as(store.outcome()).isLessThan(BOUND);
                assertThat(store.outcome()).as("a 503 naming the node and the stall").startsWith("503 ")
                        .contains(paused.nodeId()).contains("did not take the body in time");

                // and once the paused node is silent, a store goes to the other node at once
                await().atMost(Duration.ofSeconds(30)).until(() -> !writable().contains(paused.nodeId()));
                int[] next = Api.tokens(4 * BLOCK_TOKENS, 2);
                Api.store(ns, next, 4096, Api.randomBytes(4 * 4096, 3)).statusCode(201)
                        .body("node", equalTo(small.nodeId()));
            } finally {
                paused.signal("CONT");
            }
        }
    }

    public static class BodyIdleAsShipped implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.body-idle-timeout", "30s");
        }
    }
}
