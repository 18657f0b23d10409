package io.promptcache.stack;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.stack.bench.BenchRequest;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Replicas (issue 35): with {@code store.replicas=2} on two storage nodes every object is written to both (a one-shot
 * store by one body read once, a two-step store copied at its commit; a continuation continues each copy of its
 * parent on its node), a lookup answers one copy and names the other as an alternate, the GC counts both copies in
 * the nodes' budgets, and when a node is killed every object still hits and loads from the other copy.
 */
class ReplicasIT {

    /**
     * HTTP/1.1: the JDK client's default h2c upgrade of a plain connection once read the gc-processor's 1.3 MB metrics
     * page as HTTP/2 frames ("Frame type(117) ... exceeds MAX_FRAME_SIZE"), as the stack's own clients avoid too.
     */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static final int BLOCK = 16;
    private static final int BLOCKS = 8;
    private static final int LONGER = BLOCKS + 4;
    private static final long BYTES_PER_BLOCK = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void shouldKeepEveryObjectServedWhenANodeOfTwoDies() throws Exception {
        // Given: two nodes, two copies of every object, and 14 prompts stored: 10 one-shot, 2 in two steps, and two
        // continuations of the first two (4 more blocks: one one-shot, one in two steps)
        StackSpec spec = new StackSpec(Path.of("..").toAbsolutePath().normalize(), null, 2, 1, 1, 0, 0, 0,
                256L << 20, null, Map.of("promptcache.index.store.replicas", "2"), Map.of(), Map.of(), false, null);
        try (Stack stack = Stack.start(spec)) {
            String index = stack.info().index().get(0);
            IndexApi engine = new IndexApi(4, null);
            String ns = engine.namespace(index, "replicas@1", BLOCK);
            List<int[]> prompts = new ArrayList<>();
            for (int p = 1; p <= 10; p++) {
                engine.store(index, ns, prompt(p, BLOCKS), kv(p, BLOCKS), BYTES_PER_BLOCK, 0);
                prompts.add(new int[]{p, BLOCKS});
            }
            for (int p = 11; p <= 12; p++) {
                assertThat(twoStep(index, ns, p, BLOCKS).path("fromBlock").isMissingNode()).isTrue();
                prompts.add(new int[]{p, BLOCKS});
            }
            IndexApi.Stored continued = engine.store(index, ns, prompt(1, LONGER), kv(1, LONGER), BYTES_PER_BLOCK,
                    BLOCKS);
            assertThat(continued.sharedBytes()).isEqualTo(BLOCKS * BYTES_PER_BLOCK);
            prompts.add(new int[]{1, LONGER});
            assertThat(twoStep(index, ns, 2, LONGER).path("fromBlock").asInt()).isEqualTo(BLOCKS);
            prompts.add(new int[]{2, LONGER});
            long total = 0;
            for (int[] p : prompts) {
                total += (p[1] == LONGER ? LONGER - BLOCKS : BLOCKS) * BYTES_PER_BLOCK;
            }

            // Then: each is on both nodes: one location, one alternate
            for (int[] p : prompts) {
                IndexApi.Lookup hit = engine.lookup(index, ns, prompt(p[0], p[1]));
                assertThat(hit.hit()).as("prompt %d", p[0]).isTrue();
                assertThat(hit.blocks()).isEqualTo(p[1]);
                assertThat(hit.alternates()).as("prompt %d", p[0]).hasSize(1);
                assertThat(Set.of(host(hit.location()), host(hit.alternates().get(0)))).hasSize(2);
                assertThat(engine.get(hit)).isEqualTo(kv(p[0], p[1]));
            }
            // ... and the GC counts both copies: each node holds every object's own bytes (a continuation's shared
            // ones are its parent's)
            long expected = total;
            String gc = stack.info().gc();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(liveBytes(gc, "node-1")).isEqualTo(expected);
                assertThat(liveBytes(gc, "node-2")).isEqualTo(expected);
            });

            // When: node-1 dies
            stack.nodes().get(0).kill();

            // Then: every prompt hits and loads at once (a GET of the dead copy fails over to the other), and once
            // the node is judged silent every lookup answers the live copy first, with no alternate left
            for (int[] p : prompts) {
                IndexApi.Lookup hit = engine.lookup(index, ns, prompt(p[0], p[1]));
                assertThat(hit.hit()).as("prompt %d right after the kill", p[0]).isTrue();
                assertThat(hit.blocks()).isEqualTo(p[1]);
                assertThat(engine.get(hit)).isEqualTo(kv(p[0], p[1]));
            }
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                for (int[] p : prompts) {
                    IndexApi.Lookup hit = engine.lookup(index, ns, prompt(p[0], p[1]));
                    assertThat(hit.hit()).as("prompt %d with node-1 silent", p[0]).isTrue();
                    assertThat(hit.blocks()).isEqualTo(p[1]);
                    assertThat(hit.node()).isEqualTo("node-2");
                    assertThat(hit.alternates()).isEmpty();
                }
            });
            for (int[] p : prompts) {
                assertThat(engine.get(engine.lookup(index, ns, prompt(p[0], p[1])))).isEqualTo(kv(p[0], p[1]));
            }
        }
    }

    /**
     * Reserve, PUT the bytes the reservation asks for at its URL (from its {@code fromBlock} on, for a continuation),
     * commit: the index copies them to the other node. Returns the reservation.
     */
    private static JsonNode twoStep(String index, String ns, int p, int blocks) throws Exception {
        HttpClient http = HTTP;
        String head = JSON.writeValueAsString(Map.of("tokens", prompt(p, blocks).tokens(), "layout",
                Map.of("bytesPerBlock", BYTES_PER_BLOCK)));
        JsonNode reservation = JSON.readTree(http.send(HttpRequest.newBuilder(URI.create(index + "/v1/namespaces/"
                + ns + "/reservations")).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(head)).build(), HttpResponse.BodyHandlers.ofString())
                .body());
        int from = reservation.path("fromBlock").asInt(0);
        byte[] kv = kv(p, blocks);
        HttpResponse<String> put = http.send(HttpRequest.newBuilder(URI.create(reservation.get("uploadUrl").asText()))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(kv, (int) (from * BYTES_PER_BLOCK),
                        (int) (kv.length - from * BYTES_PER_BLOCK)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(put.statusCode()).isEqualTo(200);
        Map<String, Object> commitBody = new java.util.HashMap<>(Map.of("tokens", prompt(p, blocks).tokens(),
                "layout", Map.of("bytesPerBlock", BYTES_PER_BLOCK), "node", reservation.get("node").asText()));
        if (from > 0) {
            commitBody.put("fromBlock", from);
            commitBody.put("continues", reservation.get("continues").asText());
            commitBody.put("uploadId", reservation.get("uploadId").asText());
        }
        String commit = JSON.writeValueAsString(commitBody);
        HttpResponse<String> committed = http.send(HttpRequest.newBuilder(URI.create(index
                + reservation.get("commitPath").asText())).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(commit)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(committed.statusCode()).as(committed.body()).isBetween(200, 201);
        return reservation;
    }

    private static long liveBytes(String gc, String node) throws Exception {
        String metrics = HTTP.send(HttpRequest.newBuilder(URI.create(gc + "/q/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("promptcache_gc_bytes\\{kind=\"live\",name=\"" + node
                + "\",scope=\"node\"} ([0-9.E]+)").matcher(metrics);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    private static String host(String url) {
        URI uri = URI.create(url);
        return uri.getHost() + ":" + uri.getPort();
    }

    /** The first {@code blocks} blocks of prompt family {@code p}: a longer one extends a shorter one. */
    private static BenchRequest prompt(int p, int blocks) {
        int[] tokens = new int[blocks * BLOCK];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = p * 10_000 + i + 1;
        }
        return new BenchRequest(-1, tokens, new long[blocks], tokens.length);
    }

    private static byte[] kv(int p, int blocks) {
        byte[] kv = new byte[(int) (blocks * BYTES_PER_BLOCK)];
        for (int i = 0; i < kv.length; i++) {
            kv[i] = (byte) (i * 13 + p);
        }
        return kv;
    }
}
