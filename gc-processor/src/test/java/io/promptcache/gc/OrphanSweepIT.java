package io.promptcache.gc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.gc.budget.OrphanSweep;
import io.promptcache.gc.testing.ClusterClient;
import io.promptcache.gc.testing.PackagedGcCluster;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.topic.Topics;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The orphan sweep after a GC outage longer than its grace (issue 66), on a real broker and a real storage node: live
 * objects were stored while no GC ran, behind a backlog of {@code objects} records, and a packaged gc-processor starts
 * with the sweep due at once. Its book lags {@code objects} while the ledgers read the backlog; the sweep deletes no
 * live object, and still deletes the real orphan (bytes no record names) once its book is proven caught up.
 */
class OrphanSweepIT extends PackagedGcCluster {

    private static final Path WORK = Path.of("target", "orphan-sweep-it").toAbsolutePath();
    /** Records of objects stored before (1 byte each: no budget pressure), read before the live objects' ones. */
    private static final int BACKLOG = 60_000;
    private static final int LIVE = 300;
    private static final Pattern ROUNDS = Pattern.compile(
            "promptcache_gc_orphan_rounds_total\\{outcome=\"([a-z_]+)\"} ([0-9.]+)");

    @BeforeAll
    static void cleanWork() {
        WorkDirectories.delete(WORK);
    }

    @Test
    void shouldDeleteNoLiveObjectWhileItsBookLagsAfterAnOutageLongerThanTheOrphanGrace() throws Exception {
        try (ClusterClient cluster = clusterClient()) {
            // Given: while no GC runs, live objects stored (bytes, then records behind a backlog) and an orphan
            long now = System.currentTimeMillis();
            List<ObjectRecord> live = new ArrayList<>();
            for (int i = 0; i < LIVE; i++) {
                live.add(cluster.upload(64, now, 0));
            }
            String orphan = Records.NAMESPACE + "/" + ObjectId.generate();
            cluster.put(orphan, 64);
            List<Map.Entry<ObjectId, ObjectRecord>> records = new ArrayList<>();
            for (int i = 0; i < BACKLOG; i++) {
                ObjectId id = ObjectId.generate();
                records.add(Map.entry(id, Records.live(id, node.nodeId(), 1, now)));
            }
            live.forEach(record -> records.add(Map.entry(Records.idOf(record), record)));
            cluster.sendAll(Topics.OBJECTS, records);
            // the outage outlasts the orphan grace: every byte on the node, and every id, is older than it
            long stored = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() - stored > 4_000);

            // When: the GC comes back, a sweep round due at its first step
            try (ServiceProcess gc = ServiceProcess.of("gc-processor", gcConfig("gc", WORK.resolve("state"))
                    .with("promptcache.gc.orphans.sweep-interval", "1s")
                    .with("promptcache.gc.orphans.grace", "3s")
                    .with("promptcache.gc.orphans.proof-wait", "1s")
                    .with("promptcache.gc.evict-interval", "200ms")
                    .logLevel("INFO").toMap(), WORK.resolve("gc.log")).start(Duration.ofSeconds(120))) {

                // Then: the orphan is deleted once the book is proven caught up
                await().atMost(Duration.ofSeconds(180)).pollInterval(Duration.ofMillis(500))
                        .until(() -> cluster.rangeGet(orphan, 8).isEmpty());
                System.out.println("orphan sweep rounds after the outage: " + rounds(gc));

                // and no live object was deleted
                List<String> deleted = live.stream().map(ObjectRecord::getKey)
                        .filter(key -> cluster.rangeGet(key, 8).isEmpty()).toList();
                assertThat(deleted).as("live objects deleted (of %d)", LIVE).isEmpty();
            }
        }
    }

    @Test
    void shouldDeleteNothingInABucketAnotherClusterClaimsUntilItsClaimIsGone() throws Exception {
        try (ClusterClient cluster = clusterClient()) {
            // Given: an orphan of this cluster's, and the bucket claimed by another cluster as well
            String orphan = Records.NAMESPACE + "/" + ObjectId.generate();
            cluster.put(orphan, 64);
            String other = OrphanSweep.CLAIMS + "another-kafka-cluster.promptcache.objects";
            cluster.put(other, 16);
            long stored = System.currentTimeMillis();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.currentTimeMillis() - stored > 4_000);

            // When: a GC sweeps every second
            try (ServiceProcess gc = ServiceProcess.of("gc-processor", gcConfig("gc-shared", WORK.resolve(
                    "state-shared")).with("promptcache.gc.orphans.sweep-interval", "1s")
                    .with("promptcache.gc.orphans.grace", "3s")
                    .with("promptcache.gc.orphans.proof-wait", "1s")
                    .logLevel("INFO").toMap(), WORK.resolve("gc-shared.log")).start(Duration.ofSeconds(120))) {

                // Then: it claims the bucket too, finds it shared round after round, and deletes nothing in it
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                        .until(() -> rounds(gc).contains("shared_bucket=") && count(rounds(gc), "shared_bucket") >= 3);
                assertThat(cluster.keys(OrphanSweep.CLAIMS)).hasSize(2).contains(other);
                assertThat(cluster.rangeGet(orphan, 8)).as("the orphan in a shared bucket").isPresent();

                // When: the other cluster's claim is deleted by hand (that cluster left the bucket)
                cluster.delete(other);

                // Then: the orphan is deleted, proven by two rounds of a bucket this cluster's alone
                await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                        .until(() -> cluster.rangeGet(orphan, 8).isEmpty());
                System.out.println("orphan sweep rounds, shared then not: " + rounds(gc));
            }
        }
    }

    private static double count(String rounds, String outcome) {
        Matcher m = Pattern.compile(outcome + "=([0-9.]+)").matcher(rounds);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static String rounds(ServiceProcess gc) {
        String metrics = given().baseUri(gc.url("")).get("/q/metrics").then().statusCode(200).extract().asString();
        StringBuilder rounds = new StringBuilder();
        Matcher m = ROUNDS.matcher(metrics);
        while (m.find()) {
            rounds.append(m.group(1)).append('=').append(m.group(2)).append(' ');
        }
        return rounds.toString().trim();
    }
}
