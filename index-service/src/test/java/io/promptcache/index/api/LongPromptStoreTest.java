package io.promptcache.index.api;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.index.streams.ReplicaStores;
import io.promptcache.schema.key.KeyPageId;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.object.WrittenKeys;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * Records bounded at any prompt length (issue 67; docs/architecture.md, "Key pages"), on the real broker and a real
 * storage node: a prompt of 1,048,576 tokens at block size 1 (16 MiB of XXH3-128 keys: a 16 MiB record before, a
 * store failed at 32k tokens) stores, its record and key pages are small on the topics, a lookup finds all of it and
 * one that diverges inside a window finds exactly the shared blocks, read from the key pages; a namespace this
 * replica's limits cannot take (the same blocks with SHA-256 under a key limit one byte short of its 32 MiB) is
 * refused at registration with a 400 naming the settings.
 */
@QuarkusTest
@TestProfile(LongPromptStoreTest.MillionTokens.class)
class LongPromptStoreTest extends NodeBackedTest {

    private static final int TOKENS = 1 << 20;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Inject
    ReplicaStores stores;

    @Test
    void shouldStoreAndFindAMillionTokenPromptAtBlockSizeOneWithBoundedRecords() throws Exception {
        // Given: a namespace of 1-token blocks: 1,048,576 keys a store at most
        String ns = given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "long-" + UUID.randomUUID(),
                "dtype", "bf16", "blockSize", 1, "hashAlgorithm", "xxh3-128")).post("/v1/namespaces").then()
                .statusCode(201).extract().path("id");
        int[] prompt = Api.tokens(TOKENS, 67);

        // When: stored whole (16 bytes of KV a token: a 16 MiB object)
        HttpResponse<String> stored = post("/v1/namespaces/" + ns + "/objects", StoreResource.STORE_FRAMED,
                Api.framed(Api.head(prompt, 16, 0), new byte[TOKENS * 16]));

        // Then: stored; on the topics one small record and 1,024 pages of 32 KiB
        assertThat(stored.statusCode()).as(stored.body()).isEqualTo(201);
        ObjectId id = ObjectId.parse(stored.body().replaceAll(".*\"objectId\":\"([0-9A-Z]+)\".*", "$1"));
        Map<String, Integer> sizes = topicSizes(id);
        System.out.printf("1,048,576 tokens at block size 1: object record %d bytes, %d key pages of at most %d"
                + " bytes%n", sizes.get("record"), sizes.get("pages"), sizes.get("largest page"));
        assertThat(sizes.get("record")).isLessThan(1024);
        assertThat(sizes.get("pages")).isEqualTo(TOKENS / WrittenKeys.KEYS_PER_PAGE);
        assertThat(sizes.get("largest page")).isLessThan(17 * 1024);

        // When: this replica's stores hold the paged record and every page (the window then reads pages from
        // there, no longer from the storing replica's own copy), and its anchors are derived (the global thread
        // derives them after the last page: until then a lookup finds a shorter match, never a wrong one)
        long published = System.nanoTime();
        await().atMost(Duration.ofSeconds(30)).until(() -> WrittenKeys.paged(stores.object(id))
                && WrittenKeys.complete(id, stores.object(id), stores::keyPage));
        await().atMost(Duration.ofSeconds(30)).until(() -> Integer.valueOf(TOKENS).equals(lookup(ns, prompt)
                .extract().path("blocks")));
        System.out.printf("the record, its 1,024 pages and its anchors in this replica's stores %d ms after the topics"
                + " were read%n", Duration.ofNanos(System.nanoTime() - published).toMillis());

        // Then: the whole prompt hits; a prompt diverging inside a window (block 524,292) hits its first 524,291
        // blocks exactly; one diverging at its first token misses
        lookup(ns, prompt).body("hit", equalTo(true)).body("blocks", equalTo(TOKENS)).body("objectId",
                equalTo(id.toString()));
        int[] diverging = prompt.clone();
        diverging[524_291] = -1 - diverging[524_291] & 0x7fff_ffff;
        lookup(ns, diverging).body("hit", equalTo(true)).body("blocks", equalTo(524_291));
        int[] other = prompt.clone();
        other[0] = other[0] + 1;
        lookup(ns, other).body("hit", equalTo(false));
        // and the prompt was not hashed again for each of these lookups: the diverging one took its 524,291 shared
        // hashes from the chain memo (docs/architecture.md, "Chain memo"), and what it answered above is exact
        String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
        double taken = Double.parseDouble(metrics.replaceAll("(?s).*\npromptcache_lookup_chain_memo_blocks_total"
                + "(?:\\{[^}]*})? ([0-9.E+]+).*", "$1"));
        assertThat(taken).isGreaterThanOrEqualTo(524_291);
    }

    @Test
    void shouldRefuseANamespaceWhoseLongestStoreTheLimitsCannotTake() {
        given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "too-many-keys", "dtype", "bf16",
                "blockSize", 1)).post("/v1/namespaces").then().statusCode(400)
                .body(containsString("promptcache.index.store.max-key-bytes=33554431"))
                .body(containsString("promptcache.index.max-tokens=1048576"));
        given().contentType(ContentType.JSON).body(Map.of("modelFingerprint", "too-many-keys", "dtype", "bf16",
                "blockSize", 2)).post("/v1/namespaces").then().statusCode(201);
    }

    private static io.restassured.response.ValidatableResponse lookup(String ns, int[] tokens) {
        return given().contentType(LookupRoute.TOKENS_BINARY).body(Api.binary(tokens))
                .post("/v1/namespaces/" + ns + "/lookup").then().statusCode(200);
    }

    private static HttpResponse<String> post(String path, String type, byte[] body)
            throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(Api.url(path))).header("Content-Type", type)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).timeout(Duration.ofSeconds(120)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The sizes (key + value) of the object's record and of its key pages as the topics hold them. */
    private static Map<String, Integer> topicSizes(ObjectId id) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, ConfigProvider.getConfig().getValue(
                "kafka.bootstrap.servers", String.class));
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        TopicCatalog catalog = TopicCatalog.defaults();
        Map<String, Integer> sizes = new HashMap<>(Map.of("record", -1, "pages", 0, "largest page", 0));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(catalog.name(Topics.OBJECTS), catalog.name(Topics.OBJECT_KEYS))) {
                consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    int size = r.key().length + (r.value() == null ? 0 : r.value().length);
                    if (r.topic().equals(catalog.name(Topics.OBJECTS)) && ObjectId.fromBytes(r.key()).equals(id)) {
                        sizes.put("record", size);
                        assertThat(WrittenKeys.paged(Topics.OBJECTS.valueSerde().deserializer().deserialize(r.topic(),
                                r.value()))).isTrue();
                    } else if (r.topic().equals(catalog.name(Topics.OBJECT_KEYS))
                            && KeyPageId.fromBytes(r.key()).object().equals(id)) {
                        sizes.merge("pages", 1, Integer::sum);
                        sizes.merge("largest page", size, Math::max);
                    }
                }
            }
        }
        return sizes;
    }

    /** Requests of a million tokens; keys of a store one byte short of a million SHA-256 hashes. */
    public static class MillionTokens implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.max-tokens", Integer.toString(TOKENS),
                    "promptcache.index.store.max-key-bytes", Integer.toString(32 * TOKENS - 1));
        }
    }
}
