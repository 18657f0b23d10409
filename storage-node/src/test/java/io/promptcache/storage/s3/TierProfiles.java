package io.promptcache.storage.s3;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

/**
 * The tier configurations the SDK suite runs in. The default test configuration is {@code write_through} with
 * synchronous writes and a 512 MiB RAM tier; these profiles add the others.
 */
final class TierProfiles {

    private TierProfiles() {
    }

    /** No RAM tier: bodies on disk only. */
    public static class DiskOnly implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.tier.ram-capacity-bytes", "0");
        }
    }

    /** write_through, acknowledged from RAM, written by the background writer; 32 MiB of RAM. */
    public static class WriteThroughAsync implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.tier.async-writes", "true",
                    "promptcache.storage.tier.ram-capacity-bytes", "33554432");
        }
    }

    /** evict_only with 32 MiB of RAM: the suite's bodies overflow it and reach disk by eviction. */
    public static class EvictOnly implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.tier.policy", "evict_only",
                    "promptcache.storage.tier.ram-capacity-bytes", "33554432");
        }
    }

    /** A RAM-only node with a small budget (256 MiB, which is then its capacity). */
    public static class RamOnly implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.storage.tier.policy", "ram_only",
                    "promptcache.storage.tier.ram-capacity-bytes", "268435456");
        }
    }

    /** Checks through readiness that the running node has the expected tiering. */
    static void assertRunningTier(String policy, long ramCapacityBytes) {
        given().when().get("/q/health/ready").then().statusCode(200)
                .body("checks.find { it.name == 'storage' }.data.tierPolicy", equalTo(policy))
                .body("checks.find { it.name == 'storage' }.data.ramCapacityBytes", equalTo((int) ramCapacityBytes))
                .body("checks.name", hasItem("storage"));
    }
}
