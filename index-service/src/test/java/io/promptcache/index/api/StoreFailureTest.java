package io.promptcache.index.api;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import jakarta.inject.Inject;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.proto.ObjectRecord;
import io.promptcache.schema.topic.TopicCatalog;
import io.promptcache.schema.topic.Topics;
import io.quarkus.test.junit.QuarkusTest;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

/**
 * A storage node that dies in the middle of a store (SIGKILL while the body streams through): the engine gets
 * 503 + Retry-After and nothing is advertised (no object record, no prefix).
 */
@QuarkusTest
class StoreFailureTest {

    @Inject
    NodeDirectory nodes;

    @Test
    void shouldAnswer503AndAdvertiseNothingWhenTheNodeDiesMidStore() throws Exception {
        ServiceHealthContract.awaitReady();
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        String ns = Api.namespace("node-dies-model-" + UUID.randomUUID());
        int[] prompt = Api.tokens(64 * 16, 3);
        int bytesPerBlock = 128 << 10;
        byte[] head = Api.framed(Api.head(prompt, bytesPerBlock, 0), new byte[0]);
        long total = head.length + 64L * bytesPerBlock;
        String killed;
        try (StorageNodeProcess node = StorageNodeProcess.start(bootstrap, Map.of())) {
            killed = node.nodeId();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> given().get("/q/health/group/store").then()
                    .statusCode(200));
            int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(30_000);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /v1/namespaces/" + ns + "/objects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                        + StoreResource.STORE_FRAMED + "\r\nContent-Length: " + total + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(head);
                byte[] chunk = new byte[bytesPerBlock];
                for (int i = 0; i < 16; i++) {
                    out.write(chunk);
                }
                out.flush();
                Thread.sleep(500);
                node.kill();
                Thread writer = new Thread(() -> {
                    try {
                        for (int i = 16; i < 64; i++) {
                            out.write(chunk);
                        }
                        out.flush();
                    } catch (IOException closedByServer) {
                        // the index may answer and close before reading the rest
                    }
                });
                writer.start();
                List<String> response = readHead(socket);
                writer.join(30_000);
                assertThat(response.get(0)).startsWith("HTTP/1.1 503");
                assertThat(response).anyMatch(h -> h.toLowerCase().startsWith("retry-after:"));
                assertThat(String.join("\n", response)).contains("StorageNodeFailed");
            }
        }
        Api.lookup(ns, prompt).statusCode(200).body("hit", equalTo(false));
        assertThat(objectRecordsOf(bootstrap, ns)).as("no object record, committed or not").isEmpty();
        // the killed node's last heartbeat keeps it live for 3 intervals: the next test class in this application
        // must not place its stores on it
        await().atMost(Duration.ofSeconds(30)).until(() -> nodes.writable().stream()
                .noneMatch(status -> status.getNodeId().equals(killed)));
    }

    @Test
    void shouldNotDeduplicateWithAnObjectWhoseNodeIsGone() {
        // Given: an object stored on node A, then a second node B
        ServiceHealthContract.awaitReady();
        String bootstrap = ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
        String ns = Api.namespace("dead-node-dedup-" + UUID.randomUUID());
        int[] prompt = Api.tokens(8 * 16, 5);
        byte[] kv = Api.randomBytes(8 * 4096, 6);
        try (StorageNodeProcess a = StorageNodeProcess.start(bootstrap, Map.of())) {
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.serving(a.nodeId()) != null);
            Api.store(ns, prompt, 4096, kv).statusCode(201).body("node", equalTo(a.nodeId()));
            StorageNodeProcess b = StorageNodeProcess.start(bootstrap, Map.of());
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> nodes.serving(b.nodeId()) != null);
                // When: A dies (no clean DOWN) and its heartbeats age out
                a.kill();
                await().atMost(Duration.ofSeconds(30)).until(() -> nodes.serving(a.nodeId()) == null);
                // Then: the same prompt is stored again, on B, instead of answering with A's object
                Api.store(ns, prompt, 4096, kv).statusCode(201).body("deduplicated", equalTo(false))
                        .body("node", equalTo(b.nodeId()));
            } finally {
                b.close();
            }
            // B said DOWN: the next test class in this application places nothing on it
            await().atMost(Duration.ofSeconds(30)).until(() -> nodes.serving(b.nodeId()) == null);
        }
    }

    /** Status line, headers and (if short) the body of the response. */
    private static List<String> readHead(Socket socket) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
            lines.add(line);
        }
        char[] body = new char[2048];
        int n = in.read(body);
        if (n > 0) {
            lines.add(new String(body, 0, n));
        }
        return lines;
    }

    /** Every record on {@code objects} (read_uncommitted: aborted ones too) of namespace {@code ns}. */
    static List<ObjectRecord> objectRecordsOf(String bootstrap, String ns) {
        String topic = TopicCatalog.defaults().name(Topics.OBJECTS);
        Map<String, Object> config = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_uncommitted");
        List<ObjectRecord> found = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            var partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.value() != null) {
                        ObjectRecord record = Topics.OBJECTS.valueSerde().deserializer().deserialize(topic, r.value());
                        if (record.getNamespaceId().equals(ns)) {
                            found.add(record);
                        }
                    }
                }
            }
        }
        return found;
    }
}
