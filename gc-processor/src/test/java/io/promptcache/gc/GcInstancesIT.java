package io.promptcache.gc;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.gc.testing.ClusterClient;
import io.promptcache.gc.testing.PackagedGcCluster;
import io.promptcache.gc.testing.Records;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.topic.Topics;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two packaged gc-processor instances share the work by consumer-group rebalance: one is stopped while deletes are
 * due, and every tombstoned object is still deleted, its record nulled exactly once (read_committed) and its bytes
 * gone from the real storage node.
 */
class GcInstancesIT extends PackagedGcCluster {

    private static final int OBJECTS = 240;
    private static final Path WORK = Path.of("target", "instances-it").toAbsolutePath();
    private static final Pattern DONE = Pattern.compile("promptcache_gc_deletes_total\\{outcome=\"done\"} ([0-9.]+)");

    @BeforeAll
    static void cleanWork() {
        WorkDirectories.delete(WORK);
    }

    private static ServiceProcess gc(String name) {
        Map<String, String> props = gcConfig(name, WORK.resolve(name).resolve("state"))
                // a stopped instance's tasks move once its session expires (Streams does not leave the group on close)
                .with("kafka-streams.consumer.session.timeout.ms", "6000")
                .with("kafka-streams.consumer.heartbeat.interval.ms", "1500")
                .with("promptcache.gc.delete.interval", "200ms")
                .with("promptcache.gc.evict-interval", "500ms")
                .logLevel("WARN").toMap();
        return ServiceProcess.of("gc-processor", props, WORK.resolve(name + ".log"));
    }

    @Test
    void shouldDeleteEveryTombstonedObjectExactlyOnceWhenAnInstanceStopsMidRun() {
        try (ClusterClient cluster = clusterClient();
                ServiceProcess a = gc("gc-a").start(Duration.ofSeconds(120));
                ServiceProcess b = gc("gc-b").start(Duration.ofSeconds(120))) {
            // Given: objects stored, then deleted by their owner, their grace windows ending one by one over 14 s
            long now = System.currentTimeMillis();
            List<ObjectId> ids = new ArrayList<>();
            List<ObjectRecord> records = new ArrayList<>();
            for (int i = 0; i < OBJECTS; i++) {
                ids.add(cluster.store(4096, now, 0, key(i)));
                records.add(Records.live(ids.get(i), node.nodeId(), 4096, now));
            }
            long graceStart = System.currentTimeMillis() + 5_000;
            for (int i = 0; i < OBJECTS; i++) {
                cluster.send(Topics.OBJECTS, ids.get(i), Records.tombstone(records.get(i), graceStart + i * 60L));
            }

            // When: both instances have deleted some, one stops while most deletes are still due
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> done(a) > 0 && done(b) > 0);
            double doneByA = done(a);
            a.stop();
            long stopped = System.nanoTime();
            long pending = cluster.latest(Topics.OBJECTS).values().stream().filter(r -> r != null).count();
            assertThat(pending).as("objects not yet deleted when gc-a stopped").isGreaterThan(OBJECTS / 4);

            // Then: every object is gone from the node, and its record nulled exactly once
            await().atMost(Duration.ofSeconds(120)).until(() -> cluster.latest(Topics.OBJECTS).values().stream()
                    .filter(r -> r != null).count() == 0);
            System.out.printf("gc-a stopped after %.0f deletes with %d of %d objects pending; all deleted %d ms later "
                    + "(gc-b did %.0f in all)%n", doneByA, pending, OBJECTS, (System.nanoTime() - stopped) / 1_000_000,
                    done(b));
            Map<ObjectId, Integer> nulls = new HashMap<>();
            cluster.history(Topics.OBJECTS).stream().filter(e -> e.getValue() == null)
                    .forEach(e -> nulls.merge(e.getKey(), 1, Integer::sum));
            assertThat(nulls).hasSize(OBJECTS).allSatisfy((id, count) -> assertThat(count).as("nulls of %s", id)
                    .isEqualTo(1));
            Map<PrefixKey, PrefixEntry> prefixes = cluster.latest(Topics.PREFIXES);
            for (int i = 0; i < OBJECTS; i++) {
                assertThat(cluster.rangeGet(records.get(i).getKey(), 10)).as("bytes of object %d", i).isEmpty();
                assertThat(prefixes.get(key(i))).as("prefix of object %d", i).isNull();
            }
        }
    }

    private static double done(ServiceProcess gc) {
        String metrics = given().baseUri(gc.url("")).get("/q/metrics").then().statusCode(200).extract().asString();
        Matcher m = DONE.matcher(metrics);
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }

    private static PrefixKey key(int i) {
        return Records.prefixKey(5000 + i);
    }
}
