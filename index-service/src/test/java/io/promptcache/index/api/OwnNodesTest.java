package io.promptcache.index.api;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import jakarta.inject.Inject;

import org.eclipse.microprofile.config.ConfigProvider;

import io.promptcache.devservices.testing.ServiceHealthContract;
import io.promptcache.devservices.testing.StorageNodeProcess;
import io.promptcache.index.storage.NodeDirectory;
import io.promptcache.schema.proto.NodeStatus;

import static org.awaitility.Awaitility.await;

/**
 * The fixture of the {@code @QuarkusTest}s that start storage nodes of their own, as processes on the test's broker
 * (no node of the shared fixture): the nodes, the ones this replica takes writes on, and a store of a body too big
 * for the socket buffers, sent as it is.
 */
abstract class OwnNodesTest {

    /** More than the loopback socket buffers of both ends hold: a paused node stops the body's write. */
    static final int BIG = 32 << 20;

    @Inject
    NodeDirectory nodes;

    /** A storage node process on the test's broker, once the replica is ready (the caller closes it). */
    static StorageNodeProcess startNode(Map<String, String> extra) {
        ServiceHealthContract.awaitReady();
        return StorageNodeProcess.start(ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class),
                extra);
    }

    /** Waits until this replica takes writes on every one of {@code started}. */
    void awaitWritable(StorageNodeProcess... started) {
        List<String> ids = Arrays.stream(started).map(StorageNodeProcess::nodeId).toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> writable().containsAll(ids));
    }

    /** The ids of the nodes this replica takes writes on now. */
    List<String> writable() {
        return nodes.writable().stream().map(NodeStatus::getNodeId).toList();
    }

    /** A store's answer and how long it took. */
    record Timed(String outcome, Duration took) {
    }

    /** Stores {@link #BIG} bytes (blocks of 1 MiB) of {@code tokens}, timed. */
    static Timed storeBig(String ns, int[] tokens) throws InterruptedException {
        long start = System.nanoTime();
        String outcome = send(ns, tokens, 1 << 20, new byte[BIG]);
        return new Timed(outcome, Duration.ofNanos(System.nanoTime() - start));
    }

    /**
     * The store's status and body, or "closed: ..." when the connection broke before an answer (the JDK's client:
     * the body is sent from the array as it is, where RestAssured's copies of a 32 MiB body fill the test's heap).
     */
    static String send(String ns, int[] tokens, long bytesPerBlock, byte[] kv) throws InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(Api.url("/v1/namespaces/" + ns + "/objects")))
                .header("Content-Type", StoreResource.STORE_FRAMED)
                .POST(HttpRequest.BodyPublishers.ofByteArray(Api.framed(Api.head(tokens, bytesPerBlock, 0), kv)))
                .timeout(Duration.ofSeconds(60)).build();
        try {
            HttpResponse<String> answer = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                    .send(request, HttpResponse.BodyHandlers.ofString());
            return answer.statusCode() + " " + answer.body();
        } catch (IOException e) {
            return "closed: " + e;
        }
    }
}
