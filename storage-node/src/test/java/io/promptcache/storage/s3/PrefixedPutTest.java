package io.promptcache.storage.s3;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.node.PrefixedPut;
import io.promptcache.storage.store.ObjectStore;
import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * promptcache's prefixed PUT (a continuation in one PutObject) through the real AWS SDK on a real socket: the object
 * is the parent's first bytes, shared, then the body; it costs only the body's bytes, outlives its parent, and a
 * refused or broken PUT leaves no upload and no byte behind.
 */
@QuarkusTest
class PrefixedPutTest extends SdkBucketFixture {

    private static final int MIB = 1 << 20;

    @Inject
    ObjectStore store;

    @Test
    void shouldStoreAContinuationInOnePutThatCostsOnlyItsNewBytes() {
        // Given: turn 1 of a conversation, 3 MiB
        byte[] turn1 = S3SdkTest.bytes(3 * MIB, 3);
        s3.putObject(b -> b.bucket(bucket).key("turn1"), RequestBody.fromBytes(turn1));
        long physical = store.usedBytes();
        // When: turn 2 = its first 2 MiB plus 1 MiB + 5 new bytes, pinned, in one PUT
        byte[] fresh = S3SdkTest.bytes(MIB + 5, 4);
        PutObjectResponse put = s3.putObject(b -> b.bucket(bucket).key("turn2").metadata(Map.of(NodeMarkers.PINNED,
                "true")).overrideConfiguration(
                        o -> o.putHeader(PrefixedPut.FROM, bucket + "/turn1")
                                .putHeader(PrefixedPut.BYTES, Long.toString(2 * MIB))),
                RequestBody.fromBytes(fresh));
        // Then: the node says it took the prefix, the object reads right and costs only the new bytes
        assertThat(put.sdkHttpResponse().firstMatchingHeader(PrefixedPut.BYTES)).contains(Long.toString(2 * MIB));
        byte[] turn2 = concat(Arrays.copyOf(turn1, 2 * MIB), fresh);
        assertRanges("turn2", turn2, 5);
        assertThat(store.usedBytes()).isEqualTo(physical + fresh.length);
        assertThat(s3.headObject(b -> b.bucket(bucket).key("turn2")).metadata()).containsEntry(NodeMarkers.PINNED,
                "true");
        assertThat(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
        // and turn 3 continues turn 2 across both of its extents, then outlives both parents
        byte[] fresh3 = S3SdkTest.bytes(700_000, 6);
        s3.putObject(b -> b.bucket(bucket).key("turn3").overrideConfiguration(o -> o
                .putHeader(PrefixedPut.FROM, "/" + bucket + "/turn2")
                .putHeader(PrefixedPut.BYTES, Long.toString(2 * MIB + 1000))), RequestBody.fromBytes(fresh3));
        byte[] turn3 = concat(Arrays.copyOf(turn2, 2 * MIB + 1000), fresh3);
        assertRanges("turn3", turn3, 7);
        s3.deleteObject(b -> b.bucket(bucket).key("turn1"));
        s3.deleteObject(b -> b.bucket(bucket).key("turn2"));
        assertRanges("turn3", turn3, 8);
        s3.deleteObject(b -> b.bucket(bucket).key("turn3"));
        assertThat(store.usedBytes()).isEqualTo(physical - turn1.length);
    }

    @Test
    void shouldRefuseBadPrefixedPutsLeavingNothingBehind() {
        s3.putObject(b -> b.bucket(bucket).key("src"), RequestBody.fromBytes(S3SdkTest.bytes(1000, 9)));
        long physical = store.usedBytes();
        byte[] body = S3SdkTest.bytes(500, 10);
        // the parent is gone: S3's answer to a copy of a missing source
        assertError(prefixed("missing", "10", body), 404, "NoSuchKey");
        // a prefix longer than the parent, a prefix of no bytes, one header without the other
        assertError(prefixed("src", "1001", body), 400, "InvalidArgument");
        assertError(prefixed("src", "0", body), 400, "InvalidArgument");
        assertError(prefixed("src", "ten", body), 400, "InvalidArgument");
        assertError(() -> s3.putObject(b -> b.bucket(bucket).key("dst").overrideConfiguration(o -> o
                .putHeader(PrefixedPut.BYTES, "10")), RequestBody.fromBytes(body)), 400, "InvalidArgument");
        // on any other operation the headers are refused, not ignored
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key("dst")).uploadId();
        assertError(() -> s3.uploadPart(b -> b.bucket(bucket).key("dst").uploadId(id).partNumber(1)
                .overrideConfiguration(o -> o.putHeader(PrefixedPut.FROM, bucket + "/src")
                        .putHeader(PrefixedPut.BYTES, "10")),
                RequestBody.fromBytes(body)), 501, "NotImplemented");
        s3.abortMultipartUpload(b -> b.bucket(bucket).key("dst").uploadId(id));
        assertThat(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
        assertThat(store.usedBytes()).isEqualTo(physical);
        assertError(() -> s3.headObject(b -> b.bucket(bucket).key("dst")), 404, null);
    }

    @Test
    void shouldAbortTheUploadWhenTheClientGoesAwayMidBody() throws Exception {
        s3.putObject(b -> b.bucket(bucket).key("src"), RequestBody.fromBytes(S3SdkTest.bytes(100_000, 11)));
        long physical = store.usedBytes();
        // When: a prefixed PUT announces a megabyte and hangs up after a kilobyte
        try (Socket socket = new Socket(endpoint.getHost(), endpoint.getPort())) {
            OutputStream out = socket.getOutputStream();
            out.write(("PUT /" + bucket + "/dst HTTP/1.1\r\nHost: " + endpoint.getHost() + "\r\n"
                    + PrefixedPut.FROM + ": " + bucket + "/src\r\n" + PrefixedPut.BYTES + ": 50000\r\n"
                    + "Content-Length: " + MIB + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[1024]);
            out.flush();
            Thread.sleep(300);
        }
        // Then: the node aborts its upload: no upload, no part, no object, no byte held
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline && !s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().isEmpty()) {
            Thread.sleep(50);
        }
        assertThat(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads()).isEmpty();
        assertThat(store.usedBytes()).isEqualTo(physical);
        assertError(() -> s3.headObject(b -> b.bucket(bucket).key("dst")), 404, null);
    }

    private Runnable prefixed(String parent, String bytes, byte[] body) {
        return () -> s3.putObject(b -> b.bucket(bucket).key("dst").overrideConfiguration(o -> o
                .putHeader(PrefixedPut.FROM, bucket + "/" + parent).putHeader(PrefixedPut.BYTES, bytes)),
                RequestBody.fromBytes(body));
    }

    private void assertRanges(String key, byte[] expected, long seed) {
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray()).isEqualTo(expected);
        Random random = new Random(seed);
        for (int i = 0; i < 20; i++) {
            int first = random.nextInt(expected.length);
            int last = first + random.nextInt(expected.length - first);
            assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=" + first + "-" + last))
                    .asByteArray()).as("bytes %d-%d", first, last)
                    .isEqualTo(Arrays.copyOfRange(expected, first, last + 1));
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(a);
        out.writeBytes(b);
        return out.toByteArray();
    }

    private static void assertError(Runnable call, int status, String code) {
        assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            if (code != null) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }
}
