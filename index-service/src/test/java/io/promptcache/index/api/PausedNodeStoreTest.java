package io.promptcache.index.api;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.proto.NodeStatus;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

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
class PausedNodeStoreTest {

    private static final int BLOCK_TOKENS = 16;
    /** More than the loopback socket buffers of both ends hold: a paused node stops the body's write. */
    private static final int BIG = 32 << 20;
    /** The write stall (5 s) and the answer: well under the minute a paused node stayed paused in the fault suite. */
    private static final Duration BOUND = Duration.ofSeconds(12);

    @Inject
    NodeDirectory nodes;

    @Test
    void shouldAnswerAStoreToAPausedNodeWithinItsBoundThenStoreOnTheOtherNode() throws Exception {
        ServiceHealthContract.awaitReady();
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        // Given: a node that takes the big object, and one too small for it
        try (StorageNodeProcess paused = StorageNodeProcess.start(bootstrap, Map.of());
                StorageNodeProcess small = StorageNodeProcess.start(bootstrap, Map.of(
                        "promptcache.storage.capacity-bytes", Long.toString(16L << 20),
                        "promptcache.storage.tier.ram-capacity-bytes", Long.toString(16L << 20)))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> writable().containsAll(List.of(paused.nodeId(),
                    small.nodeId())));
            String ns = Api.namespace("paused-node-" + paused.nodeId());
            paused.signal("STOP");
            try {
                // When: a big store, which only the paused node has room for
                int[] big = Api.tokens(BIG / (1 << 20) * BLOCK_TOKENS, 1);
                long start = System.nanoTime();
                String outcome = send(ns, big, 1 << 20, new byte[BIG]);
                Duration took = Duration.ofNanos(System.nanoTime() - start);

                // Then: refused within the bound, saying why (or the connection closed on the rest of the body)
                System.out.printf("store to a paused node: %s after %d ms%n", outcome, took.toMillis());
                assertThat(took).as(outcome).isLessThan(BOUND);
                assertThat(outcome).as("a 503 naming the node and the stall").startsWith("503 ")
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

    /**
     * The store's status and body, or "closed: ..." when the connection broke before an answer (the JDK's client:
     * the body is sent from the array as it is, where RestAssured's copies of a 32 MiB body fill the test's heap).
     */
    static String send(String ns, int[] tokens, long bytesPerBlock, byte[] kv) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(Api.url("/v1/namespaces/" + ns + "/objects")))
                .header("Content-Type", StoreResource.STORE_FRAMED)
                .POST(HttpRequest.BodyPublishers.ofByteArray(Api.framed(Api.head(tokens, bytesPerBlock, 0), kv)))
                .timeout(Duration.ofSeconds(60)).build();
        try {
            HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .send(request, HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() + " " + answer.body();
        } catch (IOException e) {
            return "closed: " + e;
        }
    }

    private List<String> writable() {
        return nodes.writable().stream().map(NodeStatus::getNodeId).toList();
    }

    public static class BodyIdleAsShipped implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.body-idle-timeout", "30s");
        }
    }
}
