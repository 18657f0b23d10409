package io.promptcache.index.storage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.OwnBrokers;
import io.promptcache.index.api.Api;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.key.PrefixKey;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node that heartbeats stays live while the replica's global stores are far behind on {@code prefixes}: the cause
 * of the "0 live" refusals of issue 31 was heartbeats read by the same consumer as prefix records, queued behind a
 * backlog of them (a fetch of up to 50 MB of prefixes applied before the next fetch brings a heartbeat). A backlog
 * of prefix records is written at once to the topics as deployed (12 partitions), then a marker (a prompt's prefixes,
 * a hit once applied); until the marker hits, for longer than twice the node's liveness window, every store is
 * accepted on the node. The feed-stall tolerance (a
 * minute by default: heartbeats that all stop are judged as of the last one for that long) is cut to a second, so a
 * backlog of seconds here stands for the backlog of minutes a loaded replica had: with heartbeats read behind the
 * prefix records (before NodeFeed) the stores of this test are refused "0 live".
 */
@QuarkusTest
@TestProfile(NodeFeedTest.OwnBroker.class)
class NodeFeedTest {

    // 2 million records keep the replica behind for 10-17 s on these 2 cores (5 million: 25-43 s, which only made the
    // suite slower); the assertion below says when it is too small
    private static final int BACKLOG = 2_000_000;

    @Test
    void shouldKeepAHeartbeatingNodeLiveWhileTheGlobalStoresWorkThroughABacklog() throws Exception {
        ServiceHealthContract.awaitReady();
        String bootstrap = OwnBrokers.bootstrap(OwnBroker.NAME, 0);
        try (StorageNodeProcess node = StorageNodeProcess.start(bootstrap, Map.of())) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                    .statusCode(200));
            String ns = Api.namespace("node-feed-model");
            String stored = Api.store(ns, Api.tokens(4 * 16, 1), 100, new byte[400]).statusCode(201).extract()
                    .path("objectId");
            int[] marker = Api.tokens(4 * 16, 2);

            writeBacklog(bootstrap, ns, stored, marker);

            // behind while the marker (written after the backlog) does not hit yet
            List<Integer> statuses = new ArrayList<>();
            long start = System.nanoTime();
            long deadline = start + Duration.ofSeconds(90).toNanos();
            int i = 0;
            for (; System.nanoTime() < deadline && i < 1_000; i++) {
                if (Api.lookup(ns, marker).statusCode(200).extract().<Boolean> path("hit")) {
                    break;
                }
                ExtractableResponse<Response> answer = Api.store(ns, Api.tokens(4 * 16, 100 + i), 100,
                        new byte[400]).extract();
                statuses.add(answer.statusCode());
                if (answer.statusCode() == 201) {
                    assertThat(answer.<String> path("node")).isEqualTo(node.nodeId());
                }
                Thread.sleep(250);
            }
            long behindMs = (System.nanoTime() - start) / 1_000_000;
            System.out.printf("node-feed-test: %d stores over %d ms behind a backlog of %d prefix records: %s%n",
                    statuses.size(), behindMs, BACKLOG, statuses);
            assertThat(Api.lookup(ns, marker).statusCode(200).extract().<Boolean> path("hit"))
                    .as("the replica applied the backlog within 90 s").isTrue();
            assertThat(behindMs).as("stores made while the replica was behind must span twice the node's liveness "
                    + "window (3 heartbeats of 500 ms) to show anything; make the backlog larger")
                    .isGreaterThan(3_000);
            assertThat(statuses).as("stores while the global stores worked through the backlog")
                    .allMatch(status -> status == 201);
        }
    }

    /**
     * {@link #BACKLOG} ADVERTISEs of an unknown object under random keys of another namespace, in one go; then the
     * marker: {@code marker}'s four prefixes naming {@code objectId} (a hit once the replica has applied them).
     */
    private static void writeBacklog(String bootstrap, String namespace, String objectId, int[] marker) {
        String topic = new TopicCatalog(TopicCatalog.DEFAULT_PREFIX).name(Topics.PREFIXES);
        NamespaceId other = NamespaceId.ofBytes(new byte[NamespaceId.LENGTH]);
        byte[] value = Topics.PREFIXES.valueSerde().serializer().serialize(topic, entry(ObjectId.generate()
                .toString(), 1));
        Random random = new Random(7);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "1",
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20,
                // the values are all alike: compressed, the backlog takes a third of the broker's disk (a full disk
                // fails the broker's log directory, and Kafka then halts the whole test JVM)
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "zstd"),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] hash = new byte[16];
            for (int i = 0; i < BACKLOG; i++) {
                random.nextBytes(hash);
                producer.send(new ProducerRecord<>(topic, new PrefixKey(other, hash).toBytes(), value));
            }
            PrefixChain chain = PrefixChain.ofTokens(NamespaceId.parse(namespace), HashAlgorithm.fromWireName(
                    given().get("/v1/namespaces/" + namespace).then().statusCode(200).extract()
                            .path("hashAlgorithm")),
                    16, marker);
            for (int k = 1; k <= chain.blocks(); k++) {
                producer.send(new ProducerRecord<>(topic, chain.key(k).toBytes(),
                        Topics.PREFIXES.valueSerde().serializer().serialize(topic, entry(objectId, k))));
            }
            producer.flush();
        }
    }

    private static PrefixEntry entry(String objectId, int blocks) {
        return PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setObjectId(objectId)
                .setBlocks(blocks).setUsableBytes(100L * blocks).setVersion(1).setOwnerId("node-feed-test").build();
    }

    /** The service on a broker of its own: the backlog must not reach the other tests' replicas. */
    public static class OwnBroker implements QuarkusTestProfile {

        static final String NAME = "node-feed-test";

        @Override
        public Map<String, String> getConfigOverrides() {
            // a backlog of seconds here stands for one of minutes under load: it outlasts the stall tolerance
            return Map.of("kafka.bootstrap.servers", OwnBrokers.bootstrap(NAME, 0),
                    "promptcache.index.storage.feed-stall-tolerance", "1s",
                    // fetches that take as long to apply as a busy replica's: the backlog fetched 50 MB at a time
                    "kafka-streams.global.consumer.max.partition.fetch.bytes", String.valueOf(16 << 20));
        }
    }
}
