package io.promptcache.gc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.gc.ledger.PrefixOwnersProcessor;
import io.promptcache.gc.testing.ClusterClient;
import io.promptcache.gc.testing.PackagedGcCluster;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.DeadLetter;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.topic.Topics;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * PrefixOwners' store has no changelog topic of its own: {@code prefixes} is its changelog. A packaged gc-processor
 * whose state directory is wiped between two runs restores it from there and still knows which object each key points
 * to - a null that names no retraction is written back for the key's LIVE owner, which only that store can tell - even
 * where {@code prefixes} holds a value nobody can read.
 */
class GcPrefixStoreRestoreIT extends PackagedGcCluster {

    private static final Path WORK = Path.of("target", "prefix-store-it").toAbsolutePath();
    private static final Duration START = Duration.ofSeconds(120);

    @BeforeAll
    static void cleanWork() {
        WorkDirectories.delete(WORK);
    }

    private static ServiceProcess gc(String run) {
        Map<String, String> props = gcConfig("gc", WORK.resolve("state")).logLevel("WARN").toMap();
        return ServiceProcess.of("gc-processor", props, WORK.resolve(run + ".log"));
    }

    @Test
    void shouldRestoreWhichObjectEachKeyPointsToFromPrefixesItselfAfterItsStateIsWiped() throws Exception {
        try (ClusterClient cluster = clusterClient()) {
            // Given: a LIVE object advertised under a key (an ADVERTISE its record does not list: the ledger learns
            // the key from PrefixOwners), and a value under another key that cannot be read
            PrefixKey kept = Records.prefixKey(7001);
            PrefixKey unreadable = Records.prefixKey(7002);
            ObjectRecord owner = cluster.upload(4096, System.currentTimeMillis(), 0);
            cluster.register(owner, kept);
            cluster.sendRaw(Topics.PREFIXES, unreadable.toBytes(), "not protobuf".getBytes(StandardCharsets.UTF_8));

            // Given: a gc-processor has read them, and wrote a null of the key back for its owner
            try (ServiceProcess gc = gc("first").start(START)) {
                cluster.send(Topics.PREFIXES, kept, null);
                await().atMost(Duration.ofSeconds(60)).until(() -> writtenBack(cluster, kept) == 1);
                await().atMost(Duration.ofSeconds(30)).until(() -> cluster.latest(Topics.DEAD_LETTERS).values()
                        .stream().map(DeadLetter::getSourceTopic).anyMatch("promptcache.prefixes"::equals));
                given().baseUri(gc.url("")).get("/q/health/ready").then().statusCode(200);
            }

            // When: its state is wiped, and it starts again
            WorkDirectories.delete(WORK.resolve("state"));
            try (ServiceProcess gc = gc("second").start(START)) {
                // Then: a null of the key is written back again: restored from prefixes, the store knows the owner
                cluster.send(Topics.PREFIXES, kept, null);
                await().atMost(Duration.ofSeconds(60)).until(() -> writtenBack(cluster, kept) == 2);

                // Then: the unreadable value restored into the store is no entry: the key is then advertised and
                // nulled like any new key (a thread that failed to read it would stop the GC)
                cluster.register(owner, unreadable);
                cluster.send(Topics.PREFIXES, unreadable, null);
                await().atMost(Duration.ofSeconds(60)).until(() -> writtenBack(cluster, unreadable) == 1);
                given().baseUri(gc.url("")).get("/q/health/ready").then().statusCode(200);
            }

            // Then: the store wrote no changelog topic of its own
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers()))) {
                Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                assertThat(topics).as("topics of the cluster").anyMatch(t -> t.endsWith("-gc-ledger-changelog"))
                        .noneMatch(t -> t.contains(PrefixOwnersProcessor.STORE));
            }
        }
    }

    /** Entries written under {@code key} after its first ADVERTISE: the GC's write-backs of its nulls. */
    private static long writtenBack(ClusterClient cluster, PrefixKey key) {
        return cluster.history(Topics.PREFIXES).stream().filter(e -> e.getKey().equals(key))
                .map(Map.Entry::getValue).filter(Objects::nonNull).count() - 1;
    }
}
