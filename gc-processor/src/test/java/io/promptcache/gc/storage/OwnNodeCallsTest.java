package io.promptcache.gc.storage;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import javax.net.ssl.SSLContext;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The GC's marks and deletes on promptcache's own nodes without the AWS SDK ({@link OwnNodeCalls}), through
 * {@link S3NodeStorage}, against a real storage node that checks SigV4: a mark replaces the object's metadata and
 * keeps its bytes, a delete removes it, an object or bucket that is not there is "gone"; a request signed with another
 * secret gets the node's 403.
 */
@QuarkusTest
@TestProfile(OwnNodeCallsTest.Signed.class)
@StorageNodeFixture.NodeConfig({"promptcache.storage.auth.mode=sigv4",
        "promptcache.storage.auth.credentials." + OwnNodeCallsTest.KEY_ID + "=" + OwnNodeCallsTest.SECRET})
class OwnNodeCallsTest extends StorageNodeFixture {

    static final String KEY_ID = "gc-key";
    static final String SECRET = "gc-secret-0123456789";

    /** The GC signs with a key its test's node knows. */
    public static class Signed implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.gc.storage.access-key-id", KEY_ID,
                    "promptcache.gc.storage.secret-access-key", SECRET);
        }
    }

    @Inject
    NodeStorage storage;

    @Test
    void shouldMarkAndDeleteOnASignedNodeWithoutTheSdk() {
        try (S3Client s3 = signedClient()) {
            // Given: an object on the node
            s3.createBucket(b -> b.bucket("marks"));
            byte[] body = "the object's bytes".getBytes(StandardCharsets.UTF_8);
            s3.putObject(b -> b.bucket("marks").key("a/one"), RequestBody.fromBytes(body));
            long copies = node.requests("copy_object");
            long deletes = node.requests("delete_object");

            // When: marked a candidate, then reclaimable
            assertThat(storage.markCandidate(node.endpoint(), "marks", "a/one", 1234L)).isTrue();
            Map<String, String> candidate = s3.headObject(b -> b.bucket("marks").key("a/one")).metadata();
            storage.markReclaimable(node.endpoint(), "marks", "a/one", 5678L);

            // Then: the metadata is the mark's, the bytes are the object's, one CopyObject each
            assertThat(candidate).containsEntry(NodeMarkers.EVICTION_CANDIDATE, "1234");
            assertThat(s3.headObject(b -> b.bucket("marks").key("a/one")).metadata())
                    .containsEntry(NodeMarkers.RECLAIMABLE_AFTER, "5678")
                    .doesNotContainKey(NodeMarkers.EVICTION_CANDIDATE);
            assertThat(s3.getObjectAsBytes(b -> b.bucket("marks").key("a/one")).asByteArray()).isEqualTo(body);
            assertThat(node.requests("copy_object") - copies).isEqualTo(2);

            // When / Then: what is not there is gone, a delete removes the object, and deleting it again is fine
            assertThat(storage.markCandidate(node.endpoint(), "marks", "a/none", 1L)).isFalse();
            assertThat(storage.markCandidate(node.endpoint(), "no-such-bucket", "a/one", 1L)).isFalse();
            storage.delete(node.endpoint(), "marks", "a/one");
            assertThatThrownBy(() -> s3.headObject(b -> b.bucket("marks").key("a/one")))
                    .isInstanceOf(NoSuchKeyException.class);
            storage.delete(node.endpoint(), "marks", "a/one");
            storage.delete(node.endpoint(), "no-such-bucket", "a/one");
            assertThat(node.requests("delete_object") - deletes).isGreaterThanOrEqualTo(2);
        }
    }

    @Test
    void shouldReturnTheNodesRefusalOfAnotherSecret() throws Exception {
        try (S3Client s3 = signedClient()) {
            s3.createBucket(b -> b.bucket("forged"));
            s3.putObject(b -> b.bucket("forged").key("k"), RequestBody.fromString("x"));
        }
        OwnNodeCalls forged = new OwnNodeCalls(new OwnNodeHttp(Optional.of(new SigningDay(
                () -> new StorageKey(KEY_ID, "not-the-secret"), "us-east-1", Clock.systemUTC())),
                new OwnNodeHttp.Transport(SSLContext.getDefault().getSocketFactory(), Duration.ofSeconds(2),
                        Duration.ofSeconds(10))));

        assertThatThrownBy(() -> forged.mark(node.endpoint(), "forged", "k", NodeMarkers.EVICTION_CANDIDATE, 1))
                .isInstanceOf(IOException.class).hasMessageContaining("403").hasMessageContaining(
                        "SignatureDoesNotMatch");
        assertThatThrownBy(() -> forged.delete(node.endpoint(), "forged", "k"))
                .isInstanceOf(IOException.class).hasMessageContaining("403");
        try (S3Client s3 = signedClient()) {
            assertThat(s3.headObject(b -> b.bucket("forged").key("k")).metadata())
                    .doesNotContainKey(NodeMarkers.EVICTION_CANDIDATE);
        }
    }

    private static S3Client signedClient() {
        return S3Client.builder().endpointOverride(URI.create(node.endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY_ID, SECRET)))
                .forcePathStyle(true).build();
    }
}
