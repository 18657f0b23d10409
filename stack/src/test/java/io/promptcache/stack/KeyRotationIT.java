package io.promptcache.stack;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.stack.bench.BenchRequest;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSecrets;
import io.promptcache.stack.up.StackSpec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Keys rotated under traffic with zero failed requests (issue 36): engines store, look up and load without pause
 * while (1) the index's API key and (2) the storage key the nodes accept and the index and GC sign with are each
 * replaced - the new key added beside the old, the users moved to it, the old one dropped - by rewriting the files
 * the services re-read while they run. Afterwards the old keys are refused.
 */
class KeyRotationIT {

    private static final String RELOAD = "500ms";
    private static final int BLOCK = 16;
    private static final long BYTES_PER_BLOCK = 256;

    @TempDir
    Path work;

    @Test
    void shouldRotateTheApiKeyAndTheStorageKeyWithoutAFailedRequest() throws Exception {
        // Given: a stack whose services re-read their key files every 500 ms, and two engines running
        Path home = Path.of("..").toAbsolutePath().normalize();
        String oldApiKey = Secrets.random(24);
        StackSpec spec = new StackSpec(home, null, 1, 1, 1, 0, 0, 0, 256L << 20, null,
                Map.of("promptcache.index.auth.reload-interval", RELOAD,
                        "promptcache.index.storage.reload-interval", RELOAD),
                Map.of("promptcache.storage.auth.reload-interval", RELOAD),
                Map.of("promptcache.gc.storage.reload-interval", RELOAD), true, oldApiKey);
        try (Stack stack = Stack.start(spec)) {
            String index = stack.info().index().get(0);
            StackSecrets secrets = stack.secrets();
            AtomicReference<IndexApi> api = new AtomicReference<>(new IndexApi(4, oldApiKey));
            String ns = api.get().namespace(index, "rotation@1", BLOCK);
            Traffic traffic = new Traffic(index, ns, api);
            List<Thread> engines = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                Thread engine = new Thread(() -> traffic.run(new Random()), "engine-" + i);
                engine.start();
                engines.add(engine);
            }
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> traffic.loaded.get() >= 10);

                // an object the old API key stored, deleted by its owner after the rotation (below)
                int[] owned = new int[4 * BLOCK];
                Arrays.setAll(owned, i -> 90_000 + i);
                String ownedId = api.get().store(index, ns, new BenchRequest(-1, owned, new long[4], owned.length),
                        new byte[(int) (4 * BYTES_PER_BLOCK)], BYTES_PER_BLOCK, 0).objectId();

                // When: the API key - the new one beside the old within the principal, the engines moved, the old
                // one dropped
                String newApiKey = Secrets.random(24);
                secrets.writeApiKeys(List.of(StackSpec.PRINCIPAL + "=" + oldApiKey + "," + newApiKey));
                IndexApi withNew = new IndexApi(4, newApiKey);
                await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                        .until(() -> withNew.namespace(index, "rotation@1", BLOCK).equals(ns));
                api.set(withNew);
                long before = traffic.requests.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> traffic.requests.get() > before + 20);
                secrets.writeApiKeys(List.of(StackSpec.PRINCIPAL + "=" + newApiKey));
                IndexApi withOld = new IndexApi(1, oldApiKey);
                await().atMost(Duration.ofSeconds(20)).until(() -> refused(() -> withOld.namespace(index, "rotation@1",
                        BLOCK), "namespace_401"));

                // Then: what the dropped key stored is still its owner's: the new key deletes it
                HttpResponse<String> deleted = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                        index + "/v1/objects/" + ownedId)).header("Authorization", "Bearer " + newApiKey).DELETE()
                        .build(), HttpResponse.BodyHandlers.ofString());
                assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(202);
                assertThat(deleted.body()).contains("TOMBSTONED");

                // When: the storage key - the nodes accept a second one, the index and the GC sign with it, the nodes
                // drop the first; a location presigned with the first key is kept to be tried at the end
                String newSecret = Secrets.random(24);
                String oldLine = java.nio.file.Files.readAllLines(secrets.nodeCredentials()).get(0);
                secrets.writeNodeCredentials(List.of(oldLine, "rotated=" + newSecret));
                Thread.sleep(3_000); // the node re-read it (reload interval 500 ms)
                secrets.writeStorageKey("rotated", newSecret);
                Thread.sleep(3_000); // the index and the GC sign with it; GETs of older locations are done
                long beforeDrop = traffic.requests.get();
                secrets.writeNodeCredentials(List.of("rotated=" + newSecret));
                await().atMost(Duration.ofSeconds(30)).until(() -> traffic.requests.get() > beforeDrop + 40);
            } finally {
                traffic.stop.set(true);
                for (Thread engine : engines) {
                    engine.join(60_000);
                }
            }

            // Then: no request failed; stores and hits went on through both rotations; the old keys are refused
            System.out.printf("key rotation under traffic: %d requests (%d stores, %d loads), %d failed%n",
                    traffic.requests.get(), traffic.stored.get(), traffic.loaded.get(), traffic.failures.size());
            assertThat(traffic.failures).as("failed requests").isEmpty();
            assertThat(traffic.stored.get()).isPositive();
            assertThat(traffic.loaded.get()).isGreaterThan(20);
            HttpResponse<String> oldLocation = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
                    traffic.firstHit.get().location())).header("Range", traffic.firstHit.get().range()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(oldLocation.statusCode()).as("a location presigned with the dropped storage key")
                    .isEqualTo(403);
        }
    }

    private static boolean refused(ThrowingCall call, String kind) {
        try {
            call.run();
            return false;
        } catch (IndexApi.CallFailed e) {
            return e.kind().equals(kind);
        }
    }

    @FunctionalInterface
    private interface ThrowingCall {

        Object run() throws IndexApi.CallFailed;
    }

    /** Engines: prompts over a few shared prefixes; a hit is loaded, a miss (or the rest of a hit) stored. */
    private static final class Traffic {

        private final String index;
        private final String ns;
        private final AtomicReference<IndexApi> api;
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong requests = new AtomicLong();
        final AtomicLong stored = new AtomicLong();
        final AtomicLong loaded = new AtomicLong();
        final Map<String, String> failures = new ConcurrentHashMap<>();
        final AtomicReference<IndexApi.Lookup> firstHit = new AtomicReference<>();

        Traffic(String index, String ns, AtomicReference<IndexApi> api) {
            this.index = index;
            this.ns = ns;
            this.api = api;
        }

        void run(Random random) {
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (!stop.get() && System.nanoTime() < deadline) {
                int blocks = 2 + random.nextInt(6);
                int[] tokens = new int[blocks * BLOCK];
                int prefix = random.nextInt(8);
                for (int i = 0; i < tokens.length; i++) {
                    tokens[i] = i < BLOCK ? prefix * 1000 + i : random.nextInt(30_000) + 1;
                }
                BenchRequest request = new BenchRequest(-1, tokens, new long[blocks], tokens.length);
                IndexApi engine = api.get();
                try {
                    IndexApi.Lookup hit = engine.lookup(index, ns, request);
                    int from = 0;
                    if (hit.hit()) {
                        byte[] bytes = engine.get(hit);
                        assertThat(bytes).hasSize((int) hit.usableBytes());
                        firstHit.compareAndSet(null, hit);
                        loaded.incrementAndGet();
                        from = hit.blocks();
                    }
                    if (from < blocks) {
                        engine.store(index, ns, request, new byte[(int) (blocks * BYTES_PER_BLOCK)], BYTES_PER_BLOCK,
                                from);
                        stored.incrementAndGet();
                    }
                    requests.incrementAndGet();
                } catch (IndexApi.CallFailed e) {
                    failures.put(e.kind() + " #" + requests.get(), String.valueOf(e.getMessage()));
                }
            }
        }
    }
}
