package io.promptcache.index.storage;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import javax.net.ssl.SSLContext;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.index.SignedStorageProfile;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The index's own PUTs ({@link OwnNodePuts}, no AWS SDK) against a real storage node that checks SigV4: the node
 * verifies the request's signature and every chunk's, and stores exactly the bytes sent (several chunks, an empty
 * body, a prefixed PUT, the pinned marker); another key gets the node's answer (403 SignatureDoesNotMatch, nothing
 * stored), a body that breaks midway leaves no object and no upload, and a node that is not there is a connection
 * failure.
 */
@QuarkusTest
@TestProfile(SignedStorageProfile.class)
@StorageNodeFixture.NodeConfig({SignedStorageProfile.NODE_AUTH, SignedStorageProfile.NODE_CREDENTIALS})
class OwnNodePutsTest extends StorageNodeFixture {

    @Inject
    NodeStorage storage;

    @Test
    void shouldStoreWhatItSentInSignedChunks() throws IOException {
        // Given
        NodeStatus own = NodeStatus.newBuilder().setNodeId(node.nodeId()).setEndpoint(node.endpoint())
                .setPrefixPuts(true).build();
        storage.prepare(own);
        String bucket = storage.bucket(own);
        byte[] parent = random(200_000, 1); // three whole chunks and a part
        byte[] added = random(70_000, 2);
        long putsBefore = node.requests("put_object");

        // When
        storage.put(own, "own/parent", new ByteArrayInputStream(parent), parent.length, true);
        storage.putPrefixed(own, "own/child", false, bucket, "own/parent", 150_000, new ByteArrayInputStream(added),
                added.length);
        storage.put(own, "own/empty", InputStream.nullInputStream(), 0, false);

        // Then
        assertThat(node.requests("put_object") - putsBefore).isEqualTo(3);
        assertThat(read(own, bucket, "own/parent")).isEqualTo(parent);
        byte[] child = Arrays.copyOf(parent, 150_000 + added.length);
        System.arraycopy(added, 0, child, 150_000, added.length);
        assertThat(read(own, bucket, "own/child")).isEqualTo(child);
        assertThat(storage.size(own, bucket, "own/empty")).isZero();
        try (S3Client s3 = signedClient()) {
            assertThat(s3.headObject(b -> b.bucket(bucket).key("own/parent")).metadata())
                    .containsEntry("promptcache-pinned", "true");
            assertThat(s3.headObject(b -> b.bucket(bucket).key("own/child")).metadata())
                    .doesNotContainKey("promptcache-pinned");
        }
    }

    @Test
    void shouldReturnTheNodesAnswerToAnotherKey() throws Exception {
        // Given: the node's bucket exists; a signer with a secret the node does not know
        NodeStatus own = NodeStatus.newBuilder().setNodeId(node.nodeId()).setEndpoint(node.endpoint()).build();
        storage.prepare(own);
        OwnNodePuts wrongKey = new OwnNodePuts(new OwnNodeHttp(Optional.of(new SigningDay(
                () -> new StorageKey(SignedStorageProfile.KEY_ID, "not-the-secret"), "us-east-1", Clock.systemUTC())),
                transport()));

        // When
        OwnNodeHttp.Answer answer = wrongKey.put(node.endpoint(), storage.bucket(own), "own/forged", Map.of(),
                new ByteArrayInputStream(random(1000, 3)), 1000);

        // Then
        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.errorCode()).isEqualTo("SignatureDoesNotMatch");
        assertThatThrownBy(() -> storage.size(own, storage.bucket(own), "own/forged"))
                .isInstanceOfSatisfying(StorageCallException.class,
                        e -> assertThat(e.kind()).isEqualTo(StorageCallException.Kind.NOT_FOUND));
    }

    @Test
    void shouldLeaveNothingOnTheNodeWhenTheEnginesBodyFailsMidway() {
        // Given: bodies that break after 100,000 of their 300,000 bytes (an engine gone mid-store)
        NodeStatus own = NodeStatus.newBuilder().setNodeId(node.nodeId()).setEndpoint(node.endpoint())
                .setPrefixPuts(true).build();
        storage.prepare(own);
        String bucket = storage.bucket(own);
        storage.put(own, "own/base", new ByteArrayInputStream(random(5000, 5)), 5000, false);

        // When: a PUT and a prefixed PUT
        assertThatThrownBy(() -> storage.put(own, "own/broken", breaking(), 300_000, false))
                .isInstanceOfSatisfying(StorageCallException.class, OwnNodePutsTest::brokeOnTheEnginesSide);
        assertThatThrownBy(() -> storage.putPrefixed(own, "own/broken-child", false, bucket, "own/base", 4000,
                breaking(), 300_000)).isInstanceOfSatisfying(StorageCallException.class,
                        OwnNodePutsTest::brokeOnTheEnginesSide);

        // Then: no object, and no upload left holding the bytes that did arrive
        for (String key : new String[]{"own/broken", "own/broken-child"}) {
            assertThatThrownBy(() -> storage.size(own, bucket, key)).isInstanceOfSatisfying(
                    StorageCallException.class,
                    e -> assertThat(e.kind()).isEqualTo(StorageCallException.Kind.NOT_FOUND));
        }
        try (S3Client s3 = signedClient()) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(s3.listMultipartUploads(
                    b -> b.bucket(bucket).prefix("own/broken")).uploads()).isEmpty());
        }
    }

    private static InputStream breaking() {
        return new SequenceInputStream(new ByteArrayInputStream(random(100_000, 4)), new InputStream() {

            @Override
            public int read() throws IOException {
                throw new IOException("the engine went away");
            }
        });
    }

    private static void brokeOnTheEnginesSide(StorageCallException e) {
        assertThat(e.kind()).isEqualTo(StorageCallException.Kind.UNREACHABLE);
        assertThat(e).hasStackTraceContaining("the engine went away");
    }

    @Test
    void shouldReportANodeThatIsNotThereAsUnreachable() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        NodeStatus gone = NodeStatus.newBuilder().setNodeId("gone").setEndpoint("http://127.0.0.1:" + port).build();
        OwnNodePuts puts = new OwnNodePuts(new OwnNodeHttp(Optional.empty(), transport()));

        assertThatThrownBy(
                () -> puts.put(gone.getEndpoint(), "b", "k", Map.of(), new ByteArrayInputStream(new byte[10]),
                        10))
                .isInstanceOf(ConnectException.class);
    }

    private static S3Client signedClient() {
        return S3Client.builder().endpointOverride(URI.create(node.endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider
                        .create(AwsBasicCredentials.create(SignedStorageProfile.KEY_ID, SignedStorageProfile.SECRET)))
                .forcePathStyle(true).build();
    }

    private byte[] read(NodeStatus own, String bucket, String key) throws IOException {
        try (InputStream in = storage.get(own, bucket, key, null).in()) {
            return in.readAllBytes();
        }
    }

    private static OwnNodeHttp.Transport transport() throws Exception {
        return new OwnNodeHttp.Transport(SSLContext.getDefault().getSocketFactory(), Duration.ofSeconds(2),
                Duration.ofSeconds(10));
    }

    private static byte[] random(int bytes, long seed) {
        byte[] b = new byte[bytes];
        new Random(seed).nextBytes(b);
        return b;
    }
}
