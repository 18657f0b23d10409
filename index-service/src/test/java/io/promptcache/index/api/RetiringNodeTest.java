package io.promptcache.index.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.schema.proto.NodeStatus;
import io.quarkus.test.junit.QuarkusTest;

import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_BYTES;
import static io.promptcache.index.api.ContinuationStoreTest.BLOCK_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A node low on room whose GC marks nothing (none runs here) retires its least recently used object ahead of need and
 * lists it in its heartbeats; the index stops serving it while the node still holds it, and the node deletes it a
 * second after at the earliest (docs/architecture.md, "Retiring"): a lookup never names an object its node already
 * deleted on its own.
 */
@QuarkusTest
class RetiringNodeTest extends OwnNodesTest {

    private static final long CAPACITY = 256 << 10;

    @Test
    void shouldStopServingAnObjectItsNodeRetiresBeforeTheNodeDeletesIt() {
        // Given: a node of 256 KiB that keeps a fifth of it free ahead of need, its objects old after 2 s unused
        try (StorageNodeProcess node = startNode(Map.of("promptcache.storage.capacity-bytes", Long.toString(CAPACITY),
                "promptcache.storage.tier.ram-capacity-bytes", Long.toString(CAPACITY),
                "promptcache.grace", "2s", "promptcache.storage.retire-ahead", "0.2"))) {
            awaitWritable(node);
            String ns = Api.namespace("retiring-" + node.nodeId());
            // six prompts of 40 KiB: 16 KiB of room left, under the 51 KiB it keeps
            List<int[]> prompts = new ArrayList<>();
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int[] tokens = Api.tokens(10 * BLOCK_TOKENS, 300 + i);
                prompts.add(tokens);
                ids.add(Api.store(ns, tokens, BLOCK_BYTES, Api.randomBytes(10 * BLOCK_BYTES, 400 + i))
                        .statusCode(201).body("node", equalTo(node.nodeId())).extract().path("objectId"));
            }
            double skippedBefore = Api.counter("promptcache_lookup_retiring_skipped_total");
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.known(node.nodeId()).getObjects() >= 6);
            long held = nodes.known(node.nodeId()).getObjects();

            // When: the objects are 2 s old; Then: the first one stored (the least recently used) stops being a
            // hit, while the node still holds all six
            NodeStatus[] atMiss = new NodeStatus[1];
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                boolean hit = Api.lookup(ns, prompts.get(0)).statusCode(200).extract().path("hit");
                atMiss[0] = nodes.known(node.nodeId());
                return !hit;
            });
            assertThat(atMiss[0].getRetiringList()).as("listed as retiring")
                    .singleElement().asString().endsWith(ids.get(0));
            assertThat(atMiss[0].getObjects()).as("still held by the node when the index stopped serving it")
                    .isEqualTo(held);
            for (int i = 1; i < 6; i++) {
                Api.lookup(ns, prompts.get(i)).statusCode(200).body("hit", equalTo(true));
            }
            assertThat(Api.counter("promptcache_lookup_retiring_skipped_total")).isGreaterThan(skippedBefore);

            // Then: the node deletes it after, and the index still does not serve it (no GC tombstones it here)
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.known(node.nodeId()).getObjects() == held - 1
                    && nodes.known(node.nodeId()).getRetiringCount() == 0);
            Api.lookup(ns, prompts.get(0)).statusCode(200).body("hit", equalTo(false));
            Api.lookup(ns, prompts.get(5)).statusCode(200).body("hit", equalTo(true));
        }
    }
}
