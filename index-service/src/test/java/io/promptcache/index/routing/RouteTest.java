package io.promptcache.index.routing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.api.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;

/**
 * Routing on the real broker: three simulated engines publish KV events to {@code engine-events}; this replica
 * routes from them, records its decisions, falls back on load, and answers the storage tier in the same call (a
 * real storage node process holds the stored object).
 */
@QuarkusTest
class RouteTest {

    private static final String MODEL = "route-model";
    private static StorageNodeProcess node;
    private static List<SimulatedEngine> engines;

    @BeforeAll
    static void start() {
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        node = StorageNodeProcess.start(bootstrap, Map.of());
        engines = List.of(new SimulatedEngine(bootstrap, "e1", MODEL, 16),
                new SimulatedEngine(bootstrap, "e2", MODEL, 16), new SimulatedEngine(bootstrap, "e3", MODEL, 16));
    }

    @AfterAll
    static void stop() {
        if (engines != null) {
            SimulatedEngine.closeAll(engines);
        }
        if (node != null) {
            node.close();
        }
    }

    @BeforeEach
    void ready() {
        ServiceHealthContract.awaitReady();
    }

    @Test
    void shouldRouteToTheEngineHoldingThePrefixThenFallBackOnLoadAndLearnFromItsDecisions() {
        // Given: e1 ran prompt a (8 blocks), e2 ran prompt b; e3 is known but holds nothing
        String ns = Api.namespace(MODEL);
        int[] a = Api.tokens(8 * 16, 1);
        int[] b = Api.tokens(8 * 16, 2);
        engines.get(0).ran(a);
        engines.get(1).ran(b);
        engines.get(2).cleared();
        awaitBlocks(MODEL, "e1", 8);
        awaitBlocks(MODEL, "e2", 8);
        awaitBlocks(MODEL, "e3", 0);

        // When / Then: a follow-up of a (its 8 blocks + 2 new ones, + a partial block) goes to e1
        int[] followUp = Arrays.copyOf(a, 10 * 16 + 7);
        System.arraycopy(Api.tokens(2 * 16 + 7, 3), 0, followUp, 8 * 16, 2 * 16 + 7);
        route(ns, followUp, null).statusCode(200).body("backend", equalTo("e1")).body("reason", equalTo("cache-hit"))
                .body("matchedBlocks", equalTo(8)).body("totalBlocks", equalTo(10)).body("hitRatio", equalTo(0.8f))
                .body("candidates.size()", equalTo(3));

        // Then: b's engine is overloaded by what the gateway says: the least loaded candidate instead
        route(ns, b, List.of(Map.of("backend", "e2", "load", 100), Map.of("backend", "e3", "load", 1),
                Map.of("backend", "e1", "load", 2))).statusCode(200).body("backend", equalTo("e3"))
                .body("reason", equalTo("load-fallback")).body("matchedBlocks", equalTo(0));

        // Then: a prompt nobody ran goes to the least loaded; the decision is recorded, so the same prompt
        // next time is a cache hit there
        int[] c = Api.tokens(6 * 16, 4);
        String chosen = route(ns, c, null).statusCode(200).body("reason", equalTo("no-match")).extract()
                .path("backend");
        route(ns, c, null).statusCode(200).body("backend", equalTo(chosen)).body("reason", equalTo("cache-hit"))
                .body("matchedBlocks", equalTo(6));

        // Then: the binary form (little-endian int32 tokens, candidates and dryRun as query parameters) answers alike
        given().contentType("application/vnd.promptcache.tokens").body(Api.binary(followUp))
                .post("/v1/namespaces/" + ns + "/route?dryRun=true&candidates=e1,e2").then().statusCode(200)
                .body("backend", equalTo("e1")).body("matchedBlocks", equalTo(10))
                .body("candidates.size()", equalTo(2));
        given().contentType("application/vnd.promptcache.tokens").body(new byte[]{1, 2, 3})
                .post("/v1/namespaces/" + ns + "/route").then().statusCode(400)
                .body("message", containsString("multiple of 4"));

        // Then: e1 evicts a's blocks 4..7 (it held a's 8 and, predicted, the follow-up's 2 more): the follow-up
        // matches 4 blocks there
        engines.get(0).evicted(a, 4);
        awaitBlocks(MODEL, "e1", 6);
        route(ns, followUp, List.of(Map.of("backend", "e1"))).statusCode(200).body("matchedBlocks", equalTo(4));
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("promptcache_routing_events_total{outcome=\"applied\"}"))
                .body(containsString("promptcache_routing_decisions_total{reason=\"cache-hit\"}"))
                .body(containsString("promptcache_route_seconds_count"));
        given().get("/v1/routing/status").then().statusCode(200).body("caughtUp", equalTo(true));
    }

    @Test
    void shouldDecideOnHashOnlyEventsAsOnTokenEventsAndReportOffloadTiers() {
        // Given: the same two engines' runs reported twice: to one model with token ids, to another with RFC #1527
        // hashes only (Mooncake's envelope, Dynamo's and SGLang's indexers); e1 also offloaded b to its CPU tier
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        String tokensModel = MODEL + "-tokens";
        String hashesModel = MODEL + "-hashes";
        int[] a = Api.tokens(8 * 16, 11);
        int[] b = Api.tokens(6 * 16, 12);
        try (SimulatedEngine t1 = new SimulatedEngine(bootstrap, "e1", tokensModel, 16);
                SimulatedEngine t2 = new SimulatedEngine(bootstrap, "e2", tokensModel, 16);
                SimulatedEngine h1 = new SimulatedEngine(bootstrap, "e1", hashesModel, 16);
                SimulatedEngine h2 = new SimulatedEngine(bootstrap, "e2", hashesModel, 16)) {
            t1.ran(a);
            t2.ran(b);
            h1.ranHashesOnly(a);
            h2.ranHashesOnly(b);
            h1.offloaded(b, "CPU");
        }
        for (String model : List.of(tokensModel, hashesModel)) {
            awaitBlocks(model, "e1", 8);
            awaitBlocks(model, "e2", 6);
        }
        String onTokens = Api.namespace(tokensModel);
        String onHashes = Api.namespace(hashesModel);

        // When / Then: every prompt is decided alike on either (a follow-up of a, of b, a new prompt)
        int[] followUp = Arrays.copyOf(a, 10 * 16);
        System.arraycopy(Api.tokens(2 * 16, 13), 0, followUp, 8 * 16, 2 * 16);
        for (int[] prompt : List.of(followUp, Arrays.copyOf(b, 4 * 16 + 3), Api.tokens(5 * 16, 14))) {
            Map<String, Object> tokens = decision(onTokens, prompt);
            assertThat(decision(onHashes, prompt)).isEqualTo(tokens);
        }
        route(onHashes, followUp, null).statusCode(200).body("backend", equalTo("e1"))
                .body("reason", equalTo("cache-hit")).body("matchedBlocks", equalTo(8));

        // Then: e1's CPU tier holding b is in the answer, beside its GPU match
        given().contentType(ContentType.JSON).body(Map.of("tokens", b, "dryRun", true))
                .post("/v1/namespaces/" + onHashes + "/route").then().statusCode(200).body("backend", equalTo("e2"))
                .body("candidates.find { it.backend == 'e1' }.matchedBlocks", equalTo(0))
                .body("candidates.find { it.backend == 'e1' }.tiers.cpu", equalTo(6))
                .body("candidates.find { it.backend == 'e2' }.tiers", nullValue());
    }

    /** A dry-run decision: backend, reason, matched blocks. */
    private static Map<String, Object> decision(String ns, int[] tokens) {
        Map<String, Object> answer = given().contentType(ContentType.JSON).body(Map.of("tokens", tokens, "dryRun",
                true)).post("/v1/namespaces/" + ns + "/route").then().statusCode(200).extract().jsonPath().getMap("");
        return Map.of("backend", answer.get("backend"), "reason", answer.get("reason"), "matchedBlocks",
                answer.get("matchedBlocks"));
    }

    @Test
    void shouldAnswerTheStorageTierWhenNoEngineHoldsThePrefix() {
        // Given: a stored object (storage tier) for prompt d; an engine known, holding nothing of d
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                .statusCode(200));
        String ns = Api.namespace(MODEL + "-storage");
        int[] d = Api.tokens(12 * 16, 5);
        String objectId = Api.store(ns, d, 512, Api.randomBytes(12 * 512, 6)).statusCode(201).extract()
                .path("objectId");

        // When / Then
        route(ns, d, List.of(Map.of("backend", "e9"))).statusCode(200).body("backend", equalTo("e9"))
                .body("matchedBlocks", equalTo(0)).body("storage.objectId", equalTo(objectId))
                .body("storage.blocks", equalTo(12)).body("storage.location", notNullValue());
        // and not when the chosen engine's GPU already holds as much
        route(ns, d, List.of(Map.of("backend", "e9"))).statusCode(200).body("matchedBlocks", equalTo(12))
                .body("storage", nullValue());
    }

    @Test
    void shouldRefuseBadRequestsAndSurvivePoisonEvents() {
        String model = MODEL + "-bad";
        String ns = Api.namespace(model);
        route(ns, new int[0], null).statusCode(400).body("message", containsString("tokens is empty"));
        given().contentType(ContentType.JSON).body("{}").post("/v1/namespaces/" + ns + "/route").then()
                .statusCode(400).body("message", containsString("tokens"));
        route(ns, Api.tokens(32, 1), List.of(Map.of("backend", "x"), Map.of("backend", "x"))).statusCode(400)
                .body("message", containsString("named twice"));
        route(ns, Api.tokens(32, 1), List.of(Map.of("backend", "x", "load", -1))).statusCode(400)
                .body("message", containsString("load"));
        route(ns, Api.tokens(32, 1), null).statusCode(409).body("message", containsString("model_name"));
        route("00112233445566778899aabbccddeeff", Api.tokens(32, 1), null).statusCode(404);

        // a poison record on engine-events: counted, the reader goes on
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        try (SimulatedEngine engine = new SimulatedEngine(bootstrap, "e4", model, 16)) {
            engine.sendRaw("not protobuf".getBytes(StandardCharsets.UTF_8));
            engine.ran(Api.tokens(4 * 16, 7));
        }
        awaitBlocks(model, "e4", 4);
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("promptcache_routing_events_unreadable_total 1.0"));
    }

    /** Waits until this replica tracks {@code blocks} blocks of {@code backend} for {@code model}. */
    private static void awaitBlocks(String model, String backend, int blocks) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/v1/routing/status").then()
                .statusCode(200).body("pools.find { it.pool.model == '" + model + "' }.blocks.'" + backend + "'",
                        equalTo(blocks)));
    }

    private static ValidatableResponse route(String ns, int[] tokens, List<Map<String, Object>> candidates) {
        Map<String, Object> body = candidates == null
                ? Map.of("tokens", tokens)
                : Map.of("tokens", tokens, "candidates", candidates);
        return given().contentType(ContentType.JSON).body(body).post("/v1/namespaces/" + ns + "/route").then();
    }
}
