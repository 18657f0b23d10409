package io.promptcache.storage;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.storage.s3.Continuations;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Crash safety of shared bodies: the packaged node is SIGKILLed while writers PUT objects, copy them (CopyObject),
 * store continuations (UploadPartCopy of a prefix of an existing object plus new bytes) and delete objects. After a
 * restart every object is whole (exactly its bytes), every acknowledged write is there, every acknowledged delete is
 * gone, no reference count needed repair, and once everything is deleted no byte and no body file is left.
 */
class CopyCrashSafetyIT {

    private static final String BUCKET = "copy-crash";
    private static final int WRITERS = 3;

    @TempDir
    Path data;

    private PackagedNode node;

    /** What each key holds if it exists. */
    private final Map<String, byte[]> contents = new ConcurrentHashMap<>();
    private final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<String> deleted = ConcurrentHashMap.newKeySet();
    private final Set<String> uploads = ConcurrentHashMap.newKeySet();

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void shouldLeaveNoObjectWithMissingBytesAndNoLeakedExtentAfterSigkill() throws Exception {
        // Given: the packaged node with persistent durability and writers that copy and delete
        node = new PackagedNode(data);
        node.start();
        try (S3Client s3 = client()) {
            s3.createBucket(b -> b.bucket(BUCKET));
        }
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            Thread t = new Thread(() -> work(writer, running), "writer-" + w);
            t.start();
            writers.add(t);
        }
        // When: SIGKILL once enough copies and deletes happened
        await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.size() >= 60 && deleted.size() >= 10);
        node.kill();
        running.set(false);
        for (Thread t : writers) {
            t.join(30_000);
        }
        // Then
        node.start();
        try (S3Client s3 = client()) {
            int whole = 0;
            for (Map.Entry<String, byte[]> e : contents.entrySet()) {
                byte[] body = read(s3, e.getKey());
                if (deleted.contains(e.getKey())) {
                    assertThat(body).as("acknowledged delete of %s", e.getKey()).isNull();
                } else if (acknowledged.contains(e.getKey())) {
                    assertThat(body).as("acknowledged write of %s", e.getKey()).isNotNull();
                }
                if (body != null) {
                    assertThat(body).as("bytes of %s", e.getKey()).isEqualTo(e.getValue());
                    whole++;
                }
            }
            long refsRepaired = node.readiness("validationRefsRepaired");
            long physical = node.readiness("usedBytes");
            long logical = node.readiness("logicalBytes");
            System.out.printf("CopyCrashSafetyIT: %d writes, %d acknowledged, %d deletes acknowledged; after SIGKILL"
                    + " + restart %d objects whole, 0 with missing bytes; physical %d bytes for %d logical;"
                    + " %d reference counts repaired%n", contents.size(), acknowledged.size(), deleted.size(), whole,
                    physical, logical, refsRepaired);
            assertThat(refsRepaired).as("counts change with their records, atomically").isZero();
            assertThat(physical).as("sharing saves bytes").isLessThan(logical);
            // and once every object and upload is gone, nothing is left: no leaked extent
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(BUCKET)).contents()) {
                s3.deleteObject(b -> b.bucket(BUCKET).key(o.key()));
            }
            for (String upload : uploads) {
                String[] keyAndId = upload.split(" ");
                try {
                    s3.abortMultipartUpload(b -> b.bucket(BUCKET).key(keyAndId[0]).uploadId(keyAndId[1]));
                } catch (software.amazon.awssdk.services.s3.model.S3Exception gone) {
                    assertThat(gone.statusCode()).isEqualTo(404);
                }
            }
        }
        assertThat(node.readiness("usedBytes")).isZero();
        assertThat(node.readiness("bodyFiles")).isZero();
        try (Stream<Path> files = Files.walk(data.resolve("objects"))) {
            assertThat(files.filter(Files::isRegularFile)).as("body files left").isEmpty();
        }
        try (Stream<Path> files = Files.walk(data.resolve("uploads"))) {
            assertThat(files.filter(Files::isRegularFile)).as("part files left").isEmpty();
        }
    }

    /** PUTs, copies, continuations and deletes, bounded in count, until stopped or the node dies. */
    private void work(int writer, AtomicBoolean running) {
        Random random = new Random(writer);
        List<String> mine = new ArrayList<>();
        try (S3Client s3 = client()) {
            for (int i = 0; running.get() && i < 2_000; i++) {
                String key = "w" + writer + "/k" + i;
                int op = mine.isEmpty() ? 0 : random.nextInt(10);
                if (op < 3) {
                    byte[] body = bytes(random, (64 << 10) + random.nextInt(512 << 10));
                    contents.put(key, body);
                    s3.putObject(b -> b.bucket(BUCKET).key(key), RequestBody.fromBytes(body));
                } else if (op < 5) {
                    String source = mine.get(random.nextInt(mine.size()));
                    contents.put(key, contents.get(source));
                    s3.copyObject(b -> b.sourceBucket(BUCKET).sourceKey(source).destinationBucket(BUCKET)
                            .destinationKey(key));
                } else if (op < 8) {
                    String source = mine.get(random.nextInt(mine.size()));
                    byte[] parent = contents.get(source);
                    int prefix = 1 + random.nextInt(parent.length);
                    byte[] fresh = bytes(random, 1 + random.nextInt(256 << 10));
                    contents.put(key, concat(Arrays.copyOf(parent, prefix), fresh));
                    continuation(s3, source, key, prefix, fresh);
                } else {
                    String victim = mine.remove(random.nextInt(mine.size()));
                    // from here until the delete is answered the object may or may not exist (a kill can land after
                    // the node applied the delete and before the answer): its bytes are checked if it is there
                    acknowledged.remove(victim);
                    s3.deleteObject(b -> b.bucket(BUCKET).key(victim));
                    deleted.add(victim);
                    continue;
                }
                acknowledged.add(key);
                mine.add(key);
            }
        } catch (RuntimeException killed) {
            // the node died under the writer: what it acknowledged is checked after the restart
        }
    }

    private void continuation(S3Client s3, String source, String key, int prefix, byte[] fresh) {
        Continuations.store(s3, BUCKET, source, key, prefix, fresh, id -> uploads.add(key + " " + id));
    }

    private static byte[] read(S3Client s3, String key) {
        try {
            return s3.getObjectAsBytes(b -> b.bucket(BUCKET).key(key)).asByteArray();
        } catch (NoSuchKeyException e) {
            return null;
        }
    }

    private S3Client client() {
        return S3Client.builder().endpointOverride(URI.create(node.endpoint())).forcePathStyle(true)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create()).build();
    }

    private static byte[] bytes(Random random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }
}
