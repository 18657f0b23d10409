package io.promptcache.gc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.apache.kafka.streams.KafkaStreams;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.gc.testing.ClusterClient;
import io.promptcache.gc.testing.Metrics;
import io.promptcache.gc.testing.Records;
import io.promptcache.gc.testing.SlowProxy;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A storage node that answers every call 15 s late (a proxy holding each connection; its heartbeats keep saying it is
 * up): the GC's calls to it run off the stream threads, so its Kafka transactions keep committing (no fencing, the
 * stream never leaves RUNNING, new objects keep reaching the books) and its deletes complete once the node answers
 * in time again.
 */
@QuarkusTest
class GcSlowNodeTest {

    private static final long KIB = 1024;
    private static SlowProxy proxy;
    private static StorageNodeProcess node;
    private static ClusterClient cluster;

    @Inject
    KafkaStreams streams;

    @BeforeAll
    static void start() throws Exception {
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        proxy = new SlowProxy();
        node = StorageNodeProcess.start(bootstrap, Map.of("promptcache.storage.advertised-endpoint",
                "http://127.0.0.1:" + proxy.port()));
        proxy.target(Integer.parseInt(node.endpoint().substring(node.endpoint().lastIndexOf(':') + 1)));
        cluster = new ClusterClient(bootstrap, node.nodeId(), node.endpoint());
    }

    @AfterAll
    static void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        if (node != null) {
            node.close();
        }
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void shouldKeepCommittingWhileANodeAnswersLateAndDeleteOnceItAnswers() {
        ServiceHealthContract.awaitReady();
        // Given: 6 objects on the node, and the node answering every call 15 s late (the S3 call timeout is 5 s: made
        // on the stream thread, their 6 DELETEs would hold one check for 30 s, past the transaction timeout)
        List<ObjectRecord> doomed = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ObjectRecord record = cluster.upload(64 * KIB, System.currentTimeMillis(), 0);
            cluster.register(record, Records.prefixKey(900 + i));
            doomed.add(record);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> gcHeld() >= 6 * 64 * KIB);
        proxy.delay(Duration.ofSeconds(15));

        // When: their owner deletes them (due at once), and the GC keeps getting new objects for 25 s
        for (ObjectRecord record : doomed) {
            cluster.send(Topics.OBJECTS, Records.idOf(record), Records.tombstone(record, System.currentTimeMillis()));
        }
        long until = System.currentTimeMillis() + 25_000;
        int registered = 0;
        while (System.currentTimeMillis() < until) {
            double before = gcHeld();
            ObjectRecord fresh = Records.live(ObjectId.generate(), node.nodeId(), 4 * KIB, System.currentTimeMillis());
            cluster.register(fresh, Records.prefixKey(1000 + registered++));
            // Then: the stream stays RUNNING and each new object reaches the budget keeper's books within seconds
            await().atMost(Duration.ofSeconds(8)).untilAsserted(() -> {
                assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
                assertThat(gcHeld()).isGreaterThan(before);
            });
        }
        assertThat(registered).isGreaterThan(3);
        assertThat(Metrics.value("promptcache_gc_deletes_total{outcome=\"failed\"}")).as("DELETEs that timed out")
                .isPositive();

        // When: the node answers in time again
        proxy.delay(Duration.ZERO);

        // Then: the deletes complete (the retry backoff doubles from 1 s), and the records go with them
        await().atMost(Duration.ofSeconds(60)).until(() -> doomed.stream().allMatch(r -> cluster.get(r.getKey())
                .isEmpty() && cluster.latest(Topics.OBJECTS).get(Records.idOf(r)) == null));
        assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
    }

    private static double gcHeld() {
        return Metrics.value("promptcache_gc_bytes{kind=\"held\",name=\"" + node.nodeId() + "\",scope=\"node\"}");
    }
}
