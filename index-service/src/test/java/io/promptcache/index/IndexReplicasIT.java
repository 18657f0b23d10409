package io.promptcache.index;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.GlobalStoreWipe;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.launcher.WorkDirectories;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.api.Api;
import io.promptcache.index.api.StoreResource;
import io.promptcache.index.streams.TopologyProducer;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.BlockLayout;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.proto.ObjectState;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.proto.Tombstone;
import io.promptcache.schema.proto.TombstoneReason;
import io.promptcache.schema.serde.SchemaVersion;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

/**
 * Two index-service replicas (the packaged app, two processes on two ports) on one broker and one storage node:
 * a store on one is a hit on the other (advertise-to-visible measured on the other replica); a replica killed and
 * restarted on its state dir, and one started on an empty state dir, come back ready with every entry (ready times
 * printed with the size of the state). Numbers are reported in docs/benchmarks.md.
 */
class IndexReplicasIT {

    private static final int STORES = 200;
    private static final int SYNTHETIC_OBJECTS = 20_000;
    private static final int SYNTHETIC_BLOCKS = 10;
    private static final Path WORK = Path.of("target", "replicas-it").toAbsolutePath();

    private static EmbeddedKafkaBroker broker;
    private static StorageNodeProcess node;

    @BeforeAll
    static void cluster() throws IOException {
        WorkDirectories.delete(WORK);
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults().withPartitions(3));
        node = StorageNodeProcess.start(broker.bootstrapServers(),
                Map.of("promptcache.storage.heartbeat-interval", "1s"));
    }

    @AfterAll
    static void stop() {
        if (node != null) {
            node.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private static ServiceProcess replica(String name) {
        return ReplicaProcess.of(broker.bootstrapServers(), WORK, name, "io.promptcache.index.streams", "io.quarkus");
    }

    @Test
    void shouldShareStoresAcrossReplicasAndComeBackAfterARestart() throws Exception {
        long first = System.nanoTime();
        try (ServiceProcess a = replica("replica-a").start(Duration.ofSeconds(120));
                ServiceProcess b = replica("replica-b").start(Duration.ofSeconds(120))) {
            System.out.printf("replicas a and b first start (empty log): both ready %d ms after a's process start%n",
                    (System.nanoTime() - first) / 1_000_000);
            String ns = given().baseUri(a.url("")).contentType(ContentType.JSON).body(Map.of("modelFingerprint",
                    "replicas@1", "dtype", "bf16", "blockSize", 16)).post("/v1/namespaces").then().statusCode(201)
                    .extract().path("id");
            awaitStoreReady(a);

            List<int[]> prompts = new ArrayList<>();
            for (int i = 0; i < STORES; i++) {
                int[] prompt = Api.tokens(32 * 16, 1000 + i);
                prompts.add(prompt);
                given().baseUri(a.url("")).contentType(StoreResource.STORE_FRAMED)
                        .body(Api.framed(Api.head(prompt, 256, 0), new byte[32 * 256]))
                        .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201);
                long stored = System.nanoTime();
                while (!hit(b, ns, prompt)) {
                    assertThat(System.nanoTime() - stored).as("visible on replica b within 10 s")
                            .isLessThan(Duration.ofSeconds(10).toNanos());
                }
            }
            String metrics = given().baseUri(b.url("")).get("/q/metrics").then().statusCode(200).extract().asString();
            System.out.printf("advertise-to-visible on replica b (advertisedAt, set before the transaction is sent, "
                    + "-> applied to b's PrefixMap), %d stores: p50 %.2f ms, p90 %.2f ms, p99 %.2f ms%n", STORES,
                    quantile(metrics, "0.5"), quantile(metrics, "0.9"), quantile(metrics, "0.99"));

            List<int[]> synthetic = publishSynthetic(NamespaceId.parse(ns));
            for (int[] prompt : List.of(synthetic.get(0), synthetic.get(synthetic.size() - 1))) {
                long start = System.nanoTime();
                while (!hit(b, ns, prompt)) {
                    assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(60).toNanos());
                    Thread.sleep(50);
                }
            }

            // a parent, a continuation sharing its bytes, then the parent evicted (its keys still name it)
            Continued continued = continuedThenParentEvicted(a, b, ns);
            // a store whose keys are in key pages (3,000 blocks of one token: 3 pages; docs/architecture.md, "Key
            // pages"): restores, wipes and replays must derive it again
            Paged paged = pagedStore(a, b);

            b.kill();
            long warm = System.nanoTime();
            try (ServiceProcess restarted = replica("replica-b").start(Duration.ofSeconds(120))) {
                report("warm restart (own state dir, SIGKILLed)", warm);
                // the stamp was flushed with the ~200,000 records after it: a replica that reads its own store finds it
                // (a point read that answered "absent" for it did not: ConcurrentReadStore#read)
                assertThat(Files.readAllLines(WORK.resolve("replica-b.log")).stream()
                        .filter(l -> l.contains("PrefixMap layout stamp none")).count())
                        .as("starts of replica b that found no PrefixMap layout stamp: its first only").isEqualTo(1);
                assertHits(restarted, ns, prompts, synthetic);
                continued.assertServedByTheContinuation(restarted);
                paged.assertHit(restarted);
                restarted.kill();
            }
            WorkDirectories.delete(WORK.resolve("replica-b").resolve("state"));
            long cold = System.nanoTime();
            try (ServiceProcess empty = replica("replica-b").start(Duration.ofSeconds(180))) {
                report("cold start (empty state dir)", cold);
                assertHits(empty, ns, prompts, synthetic);
                continued.assertServedByTheContinuation(empty);
                paged.assertHit(empty);
                empty.kill();
            }
            // the PrefixMap wiped and restored from prefixes alone, as Kafka Streams does after an offset out of range
            // or a corrupt store: its store and its offsets in the global checkpoint gone, the ObjectTable's store and
            // offsets kept, so objects is not replayed (issue 66)
            wipePrefixMap(WORK.resolve("replica-b").resolve("state"));
            long wiped = System.nanoTime();
            try (ServiceProcess restored = replica("replica-b").start(Duration.ofSeconds(180))) {
                report("PrefixMap store wiped and restored from prefixes", wiped);
                assertHits(restored, ns, prompts, synthetic);
                continued.assertServedByTheContinuation(restored);
                paged.assertHit(restored);
            }
        }
    }

    /** Deletes the PrefixMap's RocksDB directory and the offsets of {@code prefixes} under a replica's state dir. */
    private static void wipePrefixMap(Path state) {
        List<String> kept = GlobalStoreWipe.wipe(state, TopologyProducer.PREFIX_MAP,
                TopicCatalog.defaults().name(Topics.PREFIXES));
        assertThat(kept).as("offsets of objects kept").anyMatch(l -> l.startsWith(TopicCatalog.defaults()
                .name(Topics.OBJECTS) + " "));
    }

    /**
     * Stores a prompt on replica {@code a}, then a longer one (a continuation: it shares the first's bytes and writes
     * ADVERTISEs for its new blocks only), then tombstones the first as the GC evicts it. Returns once replica
     * {@code b} serves the first prompt's prefix from the continuation.
     */
    private static Continued continuedThenParentEvicted(ServiceProcess a, ServiceProcess b, String ns)
            throws InterruptedException {
        int[] parent = Api.tokens(8 * 16, 7001);
        int[] longer = new int[16 * 16];
        System.arraycopy(parent, 0, longer, 0, parent.length);
        System.arraycopy(Api.tokens(8 * 16, 7002), 0, longer, parent.length, 8 * 16);
        String parentId = given().baseUri(a.url("")).contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(parent, 256, 0), new byte[8 * 256])).post("/v1/namespaces/" + ns
                        + "/objects")
                .then().statusCode(201).extract().path("objectId");
        String childId = given().baseUri(a.url("")).contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(longer, 256, 0), new byte[16 * 256])).post("/v1/namespaces/" + ns
                        + "/objects")
                .then().statusCode(201).body("continues", equalTo(parentId)).extract()
                .path("objectId");
        ObjectRecord tombstoned = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setState(ObjectState.OBJECT_STATE_TOMBSTONED).setNamespaceId(ns).addNodes(node.nodeId())
                .setBucket("promptcache-kv").setKey(ns + "/" + parentId).setTotalBytes(8 * 256L)
                .setLayout(BlockLayout.newBuilder().setBytesPerBlock(256)).setBlocks(8).setOwnerId("default")
                .setTenantId("default").setTombstone(Tombstone.newBuilder().setEpoch(1)
                        .setReason(TombstoneReason.TOMBSTONE_REASON_NODE_BUDGET)
                        .setDeleteAfterMs(System.currentTimeMillis()))
                .build();
        String objects = TopicCatalog.defaults().name(Topics.OBJECTS);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new ByteArraySerializer(),
                new ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(objects, ObjectId.parse(parentId).toBytes(),
                    Topics.OBJECTS.valueSerde().serializer().serialize(objects, tombstoned)));
            producer.flush();
        }
        Continued continued = new Continued(ns, parent, longer, childId);
        long start = System.nanoTime();
        while (!childId.equals(continued.lookup(b, parent).getString("objectId"))) {
            assertThat(System.nanoTime() - start).as("replica b serves the evicted parent's prefix from the "
                    + "continuation within 10 s").isLessThan(Duration.ofSeconds(10).toNanos());
            Thread.sleep(50);
        }
        return continued;
    }

    /** A continuation whose parent was evicted: both prompts' prefixes are the continuation's. */
    private record Continued(String ns, int[] parent, int[] longer, String childId) {

        JsonPath lookup(ServiceProcess replica, int[] prompt) {
            return given().baseUri(replica.url("")).contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                    .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).extract().jsonPath();
        }

        /** After a replay of the log: the parent's keys (still naming the evicted parent) resolve to its sharer. */
        void assertServedByTheContinuation(ServiceProcess replica) {
            JsonPath short8 = lookup(replica, parent);
            assertThat(short8.<Boolean> get("hit")).as("the evicted parent's prompt").isTrue();
            assertThat(short8.<String> get("objectId")).isEqualTo(childId);
            assertThat(short8.<Integer> get("blocks")).isEqualTo(8);
            assertThat(short8.<String> get("range")).as("its bytes are the continuation's first 8 blocks")
                    .isEqualTo("bytes=0-" + (8 * 256 - 1));
            JsonPath long16 = lookup(replica, longer);
            assertThat(long16.<String> get("objectId")).isEqualTo(childId);
            assertThat(long16.<Integer> get("blocks")).isEqualTo(16);
        }
    }

    private static void report(String what, long startNanos) throws IOException {
        System.out.printf("replica b %s: ready %d ms after process start, with %d objects and %d prefix entries "
                + "in the log%n", what, (System.nanoTime() - startNanos) / 1_000_000, STORES + SYNTHETIC_OBJECTS,
                STORES * 32 + SYNTHETIC_OBJECTS * SYNTHETIC_BLOCKS);
        List<String> lines = Files.readAllLines(WORK.resolve("replica-b.log"));
        List<String> restore = lines.stream().filter(l -> l.contains("Global store") || l.contains("RUNNING")
                || l.contains("started in")).toList();
        restore.subList(Math.max(0, restore.size() - 6), restore.size())
                .forEach(l -> System.out.println("  " + l.replaceAll("^.*?\\) ", "")));
    }

    private static void assertHits(ServiceProcess replica, String ns, List<int[]> prompts, List<int[]> synthetic) {
        Random random = new Random(7);
        for (int i = 0; i < 50; i++) {
            int stored = random.nextInt(prompts.size());
            int published = random.nextInt(synthetic.size());
            for (int[] prompt : List.of(prompts.get(stored), synthetic.get(published))) {
                String answer = given().baseUri(replica.url("")).contentType(ContentType.JSON)
                        .body(Map.of("tokens", prompt)).post("/v1/namespaces/" + ns + "/lookup").then()
                        .statusCode(200).extract().asString();
                assertThat(answer).as("lookup of " + (prompt == prompts.get(stored)
                        ? "stored prompt " + stored
                        : "published prompt " + published) + " on the restarted replica; store health: "
                        + given().baseUri(replica.url("")).get("/q/health/group/store").asString())
                        .contains("\"hit\":true");
            }
        }
    }

    private static boolean hit(ServiceProcess replica, String ns, int[] prompt) {
        return given().baseUri(replica.url("")).contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).extract().<Boolean> path("hit");
    }

    private static void awaitStoreReady(ServiceProcess replica) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (given().baseUri(replica.url("")).get("/q/health/group/store").statusCode() != 200) {
            assertThat(System.nanoTime()).as("a live storage node").isLessThan(deadline);
            Thread.sleep(100);
        }
        given().baseUri(replica.url("")).get("/q/health/group/store").then().body("status", equalTo("UP"));
    }

    /** Objects and their prefixes produced straight to Kafka (what many stores leave), to give the state size. */
    /** A prompt stored in a namespace of one-token blocks, whose record lists its keys in pages. */
    private record Paged(String ns, int[] prompt) {

        void assertHit(ServiceProcess replica) {
            long start = System.nanoTime();
            Object blocks = null;
            while (System.nanoTime() - start < Duration.ofSeconds(30).toNanos()) {
                blocks = given().baseUri(replica.url("")).contentType(ContentType.JSON).body(Map.of("tokens",
                        prompt)).post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200).extract()
                        .path("blocks");
                if (Integer.valueOf(prompt.length).equals(blocks)) {
                    return;
                }
            }
            assertThat(blocks).as("blocks of the paged store's prompt").isEqualTo(prompt.length);
        }
    }

    private static Paged pagedStore(ServiceProcess a, ServiceProcess b) {
        String ns = given().baseUri(a.url("")).contentType(ContentType.JSON).body(Map.of("modelFingerprint",
                "replicas-paged@1", "dtype", "bf16", "blockSize", 1)).post("/v1/namespaces").then().statusCode(201)
                .extract().path("id");
        int[] prompt = Api.tokens(3_000, 67);
        given().baseUri(a.url("")).contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(prompt, 8, 0), new byte[3_000 * 8]))
                .post("/v1/namespaces/" + ns + "/objects").then().statusCode(201);
        Paged paged = new Paged(ns, prompt);
        paged.assertHit(b);
        return paged;
    }

    private static List<int[]> publishSynthetic(NamespaceId ns) {
        TopicCatalog catalog = TopicCatalog.defaults();
        String objects = catalog.name(Topics.OBJECTS);
        String prefixes = catalog.name(Topics.PREFIXES);
        List<int[]> prompts = new ArrayList<>();
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 << 10);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < SYNTHETIC_OBJECTS; i++) {
                int[] prompt = Api.tokens(SYNTHETIC_BLOCKS * 16, 1_000_000 + i);
                prompts.add(prompt);
                PrefixChain chain = PrefixChain.ofTokens(ns, HashAlgorithm.SHA256, 16, prompt);
                ObjectId id = ObjectId.generate();
                ObjectRecord record = ObjectRecord.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                        .setState(ObjectState.OBJECT_STATE_LIVE).setNamespaceId(ns.toString())
                        .addNodes(node.nodeId()).setBucket("promptcache-kv").setKey(ns + "/" + id)
                        .setTotalBytes(SYNTHETIC_BLOCKS * 256L)
                        .setLayout(BlockLayout.newBuilder().setBytesPerBlock(256)).setBlocks(SYNTHETIC_BLOCKS)
                        .setOwnerId("default").setTenantId("default").build();
                producer.send(new ProducerRecord<>(objects, id.toBytes(),
                        Topics.OBJECTS.valueSerde().serializer().serialize(objects, record)));
                for (int k = 1; k <= SYNTHETIC_BLOCKS; k++) {
                    PrefixEntry entry = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                            .setObjectId(id.toString()).setBlocks(k).setUsableBytes(k * 256L).build();
                    producer.send(new ProducerRecord<>(prefixes, chain.key(k).toBytes(),
                            Topics.PREFIXES.valueSerde().serializer().serialize(prefixes, entry)));
                }
            }
            producer.flush();
        }
        return prompts;
    }

    private static double quantile(String metrics, String q) {
        Matcher m = Pattern.compile("promptcache_advertise_visible_seconds\\{quantile=\"" + Pattern.quote(q)
                + "\"[^}]*} ([0-9.eE+-]+)").matcher(metrics);
        assertThat(m.find()).as("quantile " + q + " of advertise-to-visible").isTrue();
        return Double.parseDouble(m.group(1)) * 1_000;
    }
}
