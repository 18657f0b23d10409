package io.promptcache.index.store;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionListing;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeProcess;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A replica readies its store path as it starts, before any store: every transactional producer initialized on
 * the broker, and the bucket created on the storage node that came up after it.
 */
@QuarkusTest
@TestProfile(StoreWarmupTest.OwnBucket.class)
class StoreWarmupTest {

    private static final String BUCKET = "warmed-at-start";
    private static final String INSTANCE = "warmup-replica";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static StorageNodeProcess node;

    /** A bucket no other test stores in, and an instance id to find this replica's transactional ids by. */
    public static class OwnBucket implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.store.bucket", BUCKET, "promptcache.index.instance-id", INSTANCE);
        }
    }

    @BeforeAll
    static void startNode() {
        node = StorageNodeProcess.start(bootstrap(), Map.of());
    }

    @AfterAll
    static void stopNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void shouldInitializeTheProducersAndCreateTheBucketBeforeAnyStore() throws Exception {
        // Given: the replica started, then the node; nothing stored

        // Then
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(HTTP.send(HttpRequest.newBuilder(
                URI.create(node.endpoint() + "/" + BUCKET)).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode()).as("HeadBucket").isEqualTo(200));
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()))) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                Set<String> ids = admin.listTransactions().all().get().stream()
                        .map(TransactionListing::transactionalId).collect(Collectors.toSet());
                assertThat(ids).contains("promptcache-index-" + INSTANCE + "-0", "promptcache-index-" + INSTANCE
                        + "-3");
            });
        }
    }

    private static String bootstrap() {
        return ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
    }
}
