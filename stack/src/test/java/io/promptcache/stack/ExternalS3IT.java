package io.promptcache.stack;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.launcher.S3Endpoint;
import io.promptcache.devservices.testing.S3ProxyServer;
import io.promptcache.stack.bench.BenchRequest;
import io.promptcache.stack.bench.IndexApi;
import io.promptcache.stack.up.Secrets;
import io.promptcache.stack.up.Stack;
import io.promptcache.stack.up.StackSpec;

import picocli.CommandLine;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The index and the GC over an S3 service that is not promptcache's (issue 35): S3Proxy, a third-party S3 server on
 * its filesystem backend, which copies the bytes of an UploadPartCopy and enforces S3's 5 MiB smallest part. No
 * storage node runs. What an operator sees at start (wrong credentials, a missing bucket: a clear line in the log,
 * stores answer 503, no crash), then a store, a lookup and one presigned range GET there, a continuation (the engine
 * sends the new blocks only; the server copies the rest), and eviction: the GC keeps the bucket under its budget,
 * tombstoned objects included, by DELETEs there.
 */
class ExternalS3IT {

    private static final int BLOCK = 16;
    private static final long BYTES_PER_BLOCK = 256 << 10;
    /** 24 blocks of 256 KiB: 6 MiB, above S3's smallest part, so a continuation of it can be a copied part. */
    private static final int PROMPT_BLOCKS = 24;
    private static final long BUDGET = 24L << 20;

    @TempDir
    Path work;

    @Test
    void shouldStoreLoadContinueAndEvictOnAnExternalS3Service() throws Exception {
        String secret = Secrets.random(20);
        try (S3ProxyServer s3 = S3ProxyServer.start(work.resolve("s3proxy"), "pc-test", secret);
                S3ProxyServer other = S3ProxyServer.start(work.resolve("other"), "pc-test", secret);
                S3Client admin = admin(s3);
                S3Client otherAdmin = admin(other)) {
            // Given: a stack with no storage node, storing on S3Proxy under a 24 MiB budget; its key file holds a
            // wrong secret at first; and a second endpoint whose bucket does not exist (and is not to be created)
            Path key = work.resolve("s3-key");
            Files.writeString(key, "access-key-id=pc-test\nsecret-access-key=wrong-" + secret + "\n");
            Path rightKey = work.resolve("s3-key-right");
            Files.writeString(rightKey, "access-key-id=pc-test\nsecret-access-key=" + secret + "\n");
            S3Endpoint endpoint = new S3Endpoint(s3.endpoint(), "pc-external", "us-east-1", BUDGET, "copy", null,
                    true, key, false);
            Map<String, String> missing = Map.of("endpoint", other.endpoint(), "bucket", "pc-missing",
                    "budget-bytes", Long.toString(1 << 20), "credentials-file", rightKey.toString());
            Map<String, String> index = new java.util.HashMap<>(Map.of("promptcache.index.storage.reload-interval",
                    "500ms"));
            Map<String, String> gc = new java.util.HashMap<>(Map.of("promptcache.gc.storage.reload-interval", "500ms",
                    "promptcache.grace", "2s"));
            missing.forEach((k, v) -> index.put("promptcache.index.storage.external.s3b." + k, v));
            missing.forEach((k, v) -> gc.put("promptcache.gc.storage.external.s3b." + k, v));
            StackSpec spec = new StackSpec(Path.of("..").toAbsolutePath().normalize(), null, 0, 1, 1, 0, 0, 0,
                    64L << 20, null, index, Map.of(), gc, true, null, false, endpoint);
            try (Stack stack = Stack.start(spec)) {
                String indexUrl = stack.info().index().get(0);
                Path indexLog = stack.replicas().get(0).log();
                IndexApi engine = new IndexApi(4, null);
                String ns = engine.namespace(indexUrl, "external@1", BLOCK);

                // Then: each problem is named in the log, the replica keeps running, stores are refused
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(indexLog).contains(
                        "External S3 endpoint s3 is down: external S3 endpoint s3 (" + s3.endpoint() + ") did not"
                                + " answer a HEAD of bucket pc-external: it answered 403"));
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(indexLog).contains(
                        "External S3 endpoint s3b is down: the bucket pc-missing does not exist on " + other.endpoint()
                                + " (external endpoint s3b): create it, or set "
                                + "promptcache.index.storage.external.s3b.create-bucket=true"));
                assertThat(Files.readString(indexLog)).contains("(check its credentials)");
                assertThat(stack.replicas().get(0).alive()).isTrue();
                assertThat(refusal(() -> engine.store(indexUrl, ns, prompt(1, PROMPT_BLOCKS),
                        kv(1, PROMPT_BLOCKS), BYTES_PER_BLOCK, 0))).isEqualTo("store_503");
                assertThat(status(stack)).containsPattern("s3 +DOWN +not live.* external S3 "
                        + Pattern.quote(s3.endpoint()) + " bucket pc-external");
                // what `up` prints after "is up" when no store can be placed: each endpoint's problem
                assertThat(stack.storesProblem(Duration.ofSeconds(1))).hasValueSatisfying(problem -> assertThat(
                        problem).startsWith("no storage node is live; ")
                        .contains("external S3 endpoint s3: external S3 endpoint s3 (" + s3.endpoint()
                                + ") did not answer a HEAD of bucket pc-external: it answered 403")
                        .contains("external S3 endpoint s3b: the bucket pc-missing does not exist on "
                                + other.endpoint()));

                // When: the key is fixed (the file is re-read), and the operator creates the other bucket
                Files.copy(rightKey, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                otherAdmin.createBucket(b -> b.bucket("pc-missing"));

                // Then: both answer; the first one's bucket was created, as its configuration says
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(indexLog)
                        .contains("External S3 endpoint s3 (" + s3.endpoint() + ") answers"));
                await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(indexLog)
                        .contains("External S3 endpoint s3b (" + other.endpoint() + ") answers"));
                assertThat(admin.listBuckets().buckets()).extracting(b -> b.name()).contains("pc-external");
                assertThat(stack.storesProblem(Duration.ofSeconds(10))).isEmpty();
                assertThat(status(stack)).containsPattern("s3 +UP +serves, takes writes.* external S3 "
                        + Pattern.quote(s3.endpoint()) + " bucket pc-external")
                        .containsPattern("s3b +UP +serves, takes writes.* bucket pc-missing");

                // When: a prompt is stored, looked up and loaded with one range GET of its presigned URL
                IndexApi.Stored first = engine.store(indexUrl, ns, prompt(1, PROMPT_BLOCKS), kv(1, PROMPT_BLOCKS),
                        BYTES_PER_BLOCK, 0);
                IndexApi.Lookup hit = engine.lookup(indexUrl, ns, prompt(1, PROMPT_BLOCKS));

                // Then: it is there, on the external endpoint, and its bytes come back
                assertThat(first.node()).isEqualTo("s3");
                assertThat(hit.hit()).isTrue();
                assertThat(hit.blocks()).isEqualTo(PROMPT_BLOCKS);
                assertThat(hit.location()).startsWith(s3.endpoint() + "/pc-external/").contains("X-Amz-Signature");
                assertThat(engine.get(hit)).isEqualTo(kv(1, PROMPT_BLOCKS));

                // When: the conversation goes on: 4 more blocks, the engine sending only those
                int longer = PROMPT_BLOCKS + 4;
                IndexApi.Stored next = engine.store(indexUrl, ns, prompt(1, longer), kv(1, longer), BYTES_PER_BLOCK,
                        PROMPT_BLOCKS);
                IndexApi.Lookup nextHit = engine.lookup(indexUrl, ns, prompt(1, longer));

                // Then: a continuation, copied on the server (a whole 7 MiB object there), served whole
                assertThat(next.sharedBytes()).isEqualTo(PROMPT_BLOCKS * BYTES_PER_BLOCK);
                assertThat(nextHit.blocks()).isEqualTo(longer);
                assertThat(engine.get(nextHit)).isEqualTo(kv(1, longer));
                assertThat(sizeOf(admin, next.objectId())).isEqualTo(longer * BYTES_PER_BLOCK);

                // When: more prompts than the budget holds (8 more of 6 MiB on 24 MiB)
                List<Integer> families = new ArrayList<>();
                for (int family = 2; family <= 9; family++) {
                    engine.store(indexUrl, ns, prompt(family, PROMPT_BLOCKS), kv(family, PROMPT_BLOCKS),
                            BYTES_PER_BLOCK, 0);
                    families.add(family);
                }

                // Then: the GC keeps the bucket under its budget by DELETEs there (tombstones, 2 s grace); the
                // oldest prompts miss, the newest still hit and load
                await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(bucketBytes(admin))
                        .isLessThanOrEqualTo(BUDGET));
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> !engine.lookup(indexUrl, ns, prompt(2, PROMPT_BLOCKS)).hit());
                IndexApi.Lookup newest = engine.lookup(indexUrl, ns, prompt(9, PROMPT_BLOCKS));
                assertThat(newest.hit()).isTrue();
                assertThat(engine.get(newest)).isEqualTo(kv(9, PROMPT_BLOCKS));
                System.out.printf("external S3: bucket holds %d bytes of a %d-byte budget after %d prompts%n",
                        bucketBytes(admin), BUDGET, families.size() + 2);
            }
        }
    }

    /** What {@code status} prints of the stack (external endpoints: from the index's view of its nodes). */
    private String status(Stack stack) throws Exception {
        Path file = work.resolve("stack.json");
        stack.info().write(file);
        StringWriter out = new StringWriter();
        CommandLine cli = StackMain.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.execute("status", "--stack-file", file.toString());
        return out.toString();
    }

    private static S3Client admin(S3ProxyServer s3) {
        return S3Client.builder().endpointOverride(URI.create(s3.endpoint())).region(Region.US_EAST_1)
                .forcePathStyle(true).httpClient(UrlConnectionHttpClient.create())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(s3.identity(),
                        s3.credential())))
                .build();
    }

    private static long bucketBytes(S3Client admin) {
        return admin.listObjectsV2Paginator(b -> b.bucket("pc-external")).contents().stream()
                .mapToLong(S3Object::size).sum();
    }

    private static long sizeOf(S3Client admin, String objectId) {
        return admin.listObjectsV2Paginator(b -> b.bucket("pc-external")).contents().stream()
                .filter(o -> o.key().endsWith("/" + objectId)).mapToLong(S3Object::size).findFirst().orElse(-1);
    }

    /** The tokens of a prompt of {@code blocks} blocks; prompts of one family share their prefixes. */
    private static BenchRequest prompt(int family, int blocks) {
        int[] tokens = new int[blocks * BLOCK];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = family * 100_000 + i + 1;
        }
        return new BenchRequest(-1, tokens, new long[blocks], tokens.length);
    }

    /** The KV bytes of a prompt: a function of the family and the position, so a prefix's bytes are shared. */
    private static byte[] kv(int family, int blocks) {
        byte[] kv = new byte[(int) (blocks * BYTES_PER_BLOCK)];
        for (int i = 0; i < kv.length; i++) {
            kv[i] = (byte) (i * 31 + (i >>> 12) + family * 7);
        }
        return kv;
    }

    private static String refusal(ThrowingCall call) {
        try {
            call.run();
            return "stored";
        } catch (IndexApi.CallFailed e) {
            return e.kind();
        }
    }

    @FunctionalInterface
    private interface ThrowingCall {

        Object run() throws IndexApi.CallFailed;
    }
}
