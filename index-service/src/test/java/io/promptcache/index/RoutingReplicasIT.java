package io.promptcache.index;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.index.api.Api;
import io.promptcache.index.routing.SimulatedEngine;
import io.restassured.http.ContentType;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Routing across replicas: three simulated engines publish KV events to the real broker; two index-service
 * replicas (packaged, two processes) give the same routing answers, also after decisions made on both (shared as
 * RoutePredicted events); replica b, restarted, rebuilds its trackers from engine-events and answers alike again
 * (replay time printed).
 */
class RoutingReplicasIT {

    private static final Path WORK = Path.of("target", "routing-it").toAbsolutePath();
    private static final String MODEL = "routing-it";
    private static final int BLOCK = 16;

    private static EmbeddedKafkaBroker broker;

    @BeforeAll
    static void cluster() throws IOException {
        WorkDirectories.delete(WORK);
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    private static ServiceProcess replica(String name) {
        return ReplicaProcess.of(broker.bootstrapServers(), WORK, name, "io.promptcache.index.routing");
    }

    @Test
    void shouldRouteAlikeOnTwoReplicasAndRebuildAfterARestart() {
        // Given: 3 engines ran 40 conversations each: 4 shared system prompts, then their own turns
        Random random = new Random(5);
        List<int[]> systemPrompts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            systemPrompts.add(Api.tokens(8 * BLOCK, 100 + i));
        }
        List<int[]> prompts = new ArrayList<>();
        List<SimulatedEngine> engines = List.of(new SimulatedEngine(broker.bootstrapServers(), "e1", MODEL, BLOCK),
                new SimulatedEngine(broker.bootstrapServers(), "e2", MODEL, BLOCK),
                new SimulatedEngine(broker.bootstrapServers(), "e3", MODEL, BLOCK));
        try {
            for (SimulatedEngine engine : engines) {
                for (int c = 0; c < 40; c++) {
                    int[] prompt = conversation(systemPrompts.get(random.nextInt(4)), random);
                    engine.ran(prompt);
                    prompts.add(prompt);
                }
                engine.evicted(prompts.get(prompts.size() - 1), 9); // some engine evictions too
            }
        } finally {
            SimulatedEngine.closeAll(engines);
        }
        // and requests: follow-ups of those conversations and new ones
        List<int[]> requests = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            int[] base = prompts.get(random.nextInt(prompts.size()));
            requests.add(i % 3 == 0
                    ? conversation(systemPrompts.get(random.nextInt(4)), random)
                    : extend(base, random));
        }

        try (ServiceProcess a = replica("replica-a").start(Duration.ofSeconds(120));
                ServiceProcess b = replica("replica-b").start(Duration.ofSeconds(120))) {
            String ns = given().baseUri(a.url("")).contentType(ContentType.JSON).body(Map.of("modelFingerprint",
                    MODEL, "dtype", "bf16", "blockSize", BLOCK)).post("/v1/namespaces").then().statusCode(201)
                    .extract().path("id");
            awaitSameTrackers(a, b);

            // When / Then: dry runs answer alike on both
            List<String> onA = answers(a, ns, requests);
            assertThat(answers(b, ns, requests)).isEqualTo(onA);
            assertThat(onA.stream().filter(r -> r.startsWith("cache-hit")).count()).as("mostly cache hits")
                    .isGreaterThan(20);

            // When: real decisions, alternating between the replicas, shared through engine-events
            for (int i = 0; i < requests.size(); i++) {
                route(i % 2 == 0 ? a : b, ns, requests.get(i), false);
            }
            awaitSameTrackers(a, b);

            // Then: both answer alike again, and the decisions made their prompts cache hits
            List<String> after = answers(a, ns, requests);
            assertThat(answers(b, ns, requests)).isEqualTo(after);
            assertThat(after).allMatch(r -> r.startsWith("cache-hit"));

            // When: b restarts (its trackers are memory only) and replays engine-events
            b.stop();
            long restart = System.nanoTime();
            try (ServiceProcess b2 = replica("replica-b").start(Duration.ofSeconds(120))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> given().baseUri(b2.url(""))
                        .get("/v1/routing/status").then().extract().path("caughtUp"));
                Map<String, Object> status = given().baseUri(b2.url("")).get("/v1/routing/status").then()
                        .extract().path("");
                System.out.printf("replica b restarted: routing ready %d ms after its process start "
                        + "(replayed %s engine-events in %s ms)%n", (System.nanoTime() - restart) / 1_000_000,
                        status.get("eventsRead"), status.get("replayMillis"));

                // Then: the same trackers and answers as a's
                awaitSameTrackers(a, b2);
                assertThat(answers(b2, ns, requests)).isEqualTo(after);
            }
        }
    }

    private static int[] conversation(int[] system, Random random) {
        int[] prompt = Arrays.copyOf(system, system.length + (2 + random.nextInt(6)) * BLOCK + random.nextInt(BLOCK));
        for (int i = system.length; i < prompt.length; i++) {
            prompt[i] = random.nextInt(100_000);
        }
        return prompt;
    }

    private static int[] extend(int[] base, Random random) {
        int[] prompt = Arrays.copyOf(base, base.length + (1 + random.nextInt(3)) * BLOCK);
        for (int i = base.length; i < prompt.length; i++) {
            prompt[i] = random.nextInt(100_000);
        }
        return prompt;
    }

    private static void awaitSameTrackers(ServiceProcess a, ServiceProcess b) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            Object onA = given().baseUri(a.url("")).get("/v1/routing/status").then().statusCode(200).extract()
                    .path("pools");
            Object onB = given().baseUri(b.url("")).get("/v1/routing/status").then().statusCode(200).extract()
                    .path("pools");
            assertThat(onB).isEqualTo(onA).asString().contains("e1", "e2", "e3");
        });
    }

    private static List<String> answers(ServiceProcess replica, String ns, List<int[]> requests) {
        List<String> out = new ArrayList<>();
        for (int[] request : requests) {
            Map<String, Object> r = route(replica, ns, request, true);
            out.add(r.get("reason") + " " + r.get("backend") + " " + r.get("matchedBlocks"));
        }
        return out;
    }

    private static Map<String, Object> route(ServiceProcess replica, String ns, int[] tokens, boolean dryRun) {
        return given().baseUri(replica.url("")).contentType(ContentType.JSON)
                .body(Map.of("tokens", tokens, "dryRun", dryRun)).post("/v1/namespaces/" + ns + "/route").then()
                .statusCode(200).extract().path("");
    }
}
