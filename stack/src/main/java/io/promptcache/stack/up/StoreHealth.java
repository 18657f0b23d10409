package io.promptcache.stack.up;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.schema.node.ExternalNodes;

/**
 * Whether an index replica can place stores, from its health group {@code store} ({@code /q/health/group/store}: UP
 * while a storage node or external endpoint is live; its data says what is wrong with each external endpoint its
 * probe refused). What {@code up} says when the stack is up but every store would answer 503 {@code NoStorageNode}.
 */
final class StoreHealth {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long POLL_MS = 250;

    private StoreHealth() {
    }

    /**
     * Empty once {@code replica} can place a store, within {@code wait}; else what is wrong, as the replica says it
     * (an endpoint probe gets {@link ExternalNodes#PROBE_INTERVAL_MS} to answer first).
     */
    static Optional<String> problem(ServiceProcess replica, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        String last = "its health group store (/q/health/group/store) did not answer";
        while (true) {
            Optional<HttpResponse<String>> answer = replica.get("/q/health/group/store");
            if (answer.isPresent()) {
                if (answer.get().statusCode() == 200) {
                    return Optional.empty();
                }
                last = describe(answer.get().body());
            }
            if (System.nanoTime() >= deadline) {
                return Optional.of(last);
            }
            Thread.sleep(POLL_MS);
        }
    }

    /** What a DOWN answer of the group says: no node live, and each external endpoint's problem. */
    static String describe(String body) {
        List<String> problems = new ArrayList<>();
        try {
            for (JsonNode check : JSON.readTree(body).path("checks")) {
                for (Map.Entry<String, JsonNode> data : check.path("data").properties()) {
                    if (data.getKey().startsWith(ExternalNodes.HEALTH_PROBLEM_PREFIX)) {
                        problems.add("external S3 endpoint "
                                + data.getKey().substring(ExternalNodes.HEALTH_PROBLEM_PREFIX.length()) + ": "
                                + data.getValue().asText());
                    }
                }
            }
        } catch (IOException e) {
            return "no storage node is live (its health group store answered: " + body + ")";
        }
        return "no storage node is live" + (problems.isEmpty() ? "" : "; " + String.join("; ", problems));
    }
}
