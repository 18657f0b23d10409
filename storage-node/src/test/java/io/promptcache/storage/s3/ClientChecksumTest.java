package io.promptcache.storage.s3;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;
import java.util.zip.CRC32;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The checksum a client uploads with is the one S3 answers (AWS SDK v2 on a real socket): echoed by PutObject and
 * UploadPart, returned by GET and HEAD with {@code x-amz-checksum-mode: ENABLED} (the SDK also validates it on GET),
 * the composite one for a multipart object; never without checksum mode, nor for a range.
 */
@QuarkusTest
class ClientChecksumTest extends SdkBucketFixture {

    private static final byte[] BODY = S3SdkTest.bytes(70_000, 21);

    private record Algorithm(ChecksumAlgorithm sdk, Function<PutObjectResponse, String> put,
            Function<HeadObjectResponse, String> head, Function<GetObjectResponse, String> get) {
    }

    @Test
    void shouldAnswerTheChecksumOfEveryAlgorithmAsUploaded() {
        List<Algorithm> algorithms = List.of(
                new Algorithm(ChecksumAlgorithm.CRC32, PutObjectResponse::checksumCRC32,
                        HeadObjectResponse::checksumCRC32, GetObjectResponse::checksumCRC32),
                new Algorithm(ChecksumAlgorithm.CRC32_C, PutObjectResponse::checksumCRC32C,
                        HeadObjectResponse::checksumCRC32C, GetObjectResponse::checksumCRC32C),
                new Algorithm(ChecksumAlgorithm.SHA1, PutObjectResponse::checksumSHA1,
                        HeadObjectResponse::checksumSHA1, GetObjectResponse::checksumSHA1),
                new Algorithm(ChecksumAlgorithm.SHA256, PutObjectResponse::checksumSHA256,
                        HeadObjectResponse::checksumSHA256, GetObjectResponse::checksumSHA256),
                new Algorithm(ChecksumAlgorithm.CRC64_NVME, PutObjectResponse::checksumCRC64NVME,
                        HeadObjectResponse::checksumCRC64NVME, GetObjectResponse::checksumCRC64NVME));
        for (Algorithm a : algorithms) {
            String key = "k-" + a.sdk();
            PutObjectResponse put = s3.putObject(b -> b.bucket(bucket).key(key).checksumAlgorithm(a.sdk()),
                    RequestBody.fromBytes(BODY));
            String sent = a.put().apply(put);
            assertThat(sent).as("PutObject echoes the %s it verified", a.sdk()).isNotBlank();
            HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key)
                    .checksumMode(ChecksumMode.ENABLED));
            assertThat(a.head().apply(head)).as(a.sdk().toString()).isEqualTo(sent);
            assertThat(head.checksumType()).isEqualTo(ChecksumType.FULL_OBJECT);
            assertThat(head.checksumCRC32C() == null || a.sdk() == ChecksumAlgorithm.CRC32_C)
                    .as("only the client's algorithm").isTrue();
            GetObjectResponse get = s3.getObjectAsBytes(b -> b.bucket(bucket).key(key)
                    .checksumMode(ChecksumMode.ENABLED)).response();
            assertThat(a.get().apply(get)).as(a.sdk().toString()).isEqualTo(sent);
            // not asked for, or a range: none
            assertThat(a.head().apply(s3.headObject(b -> b.bucket(bucket).key(key)))).isNull();
            assertThat(a.get().apply(s3.getObjectAsBytes(b -> b.bucket(bucket).key(key).range("bytes=0-9")
                    .checksumMode(ChecksumMode.ENABLED)).response())).isNull();
        }
    }

    @Test
    void shouldAnswerTheCompositeChecksumOfAMultipartObject() {
        String key = "mp";
        String id = s3.createMultipartUpload(b -> b.bucket(bucket).key(key).checksumAlgorithm(ChecksumAlgorithm.CRC32))
                .uploadId();
        byte[] first = S3SdkTest.bytes(5 << 20, 22);
        byte[] second = S3SdkTest.bytes(1000, 23);
        UploadPartResponse p1 = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(1)
                .checksumAlgorithm(ChecksumAlgorithm.CRC32), RequestBody.fromBytes(first));
        UploadPartResponse p2 = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(id).partNumber(2)
                .checksumAlgorithm(ChecksumAlgorithm.CRC32), RequestBody.fromBytes(second));
        assertThat(p1.checksumCRC32()).as("UploadPart echoes the part's checksum").isEqualTo(crc32(first));
        assertThat(p2.checksumCRC32()).isEqualTo(crc32(second));
        // ListParts names each part's checksum (issue 73: a part uploaded again had lost it there)
        assertThat(s3.listParts(b -> b.bucket(bucket).key(key).uploadId(id)).parts())
                .extracting(p -> p.partNumber(), p -> p.checksumCRC32()).containsExactly(
                        org.assertj.core.groups.Tuple.tuple(1, p1.checksumCRC32()),
                        org.assertj.core.groups.Tuple.tuple(2, p2.checksumCRC32()));
        // a Complete naming a part's checksum that is not the part's is refused, and leaves the upload as it was
        assertThatThrownBy(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id)
                .multipartUpload(m -> m.parts(CompletedPart.builder().partNumber(1).eTag(p1.eTag())
                        .checksumCRC32(p2.checksumCRC32()).build(),
                        CompletedPart.builder().partNumber(2)
                                .eTag(p2.eTag()).checksumCRC32(p2.checksumCRC32()).build()))))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidPart");
                });
        // S3's composite checksum: the CRC32 of the parts' binary CRC32s, then "-<parts>", in the Complete's answer too
        CRC32 composite = new CRC32();
        composite.update(Base64.getDecoder().decode(p1.checksumCRC32()));
        composite.update(Base64.getDecoder().decode(p2.checksumCRC32()));
        String expected = base64((int) composite.getValue()) + "-2";
        // a Complete claiming another composite checksum for the object is refused (issue 73: it was accepted)
        String wrong = base64((int) composite.getValue() + 1) + "-2";
        List<CompletedPart> parts = List.of(
                CompletedPart.builder().partNumber(1).eTag(p1.eTag()).checksumCRC32(p1.checksumCRC32()).build(),
                CompletedPart.builder().partNumber(2).eTag(p2.eTag()).checksumCRC32(p2.checksumCRC32()).build());
        assertThatThrownBy(() -> s3.completeMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(id)
                .checksumCRC32(wrong).multipartUpload(m -> m.parts(parts))))
                .isInstanceOfSatisfying(S3Exception.class, e -> {
                    assertThat(e.statusCode()).isEqualTo(400);
                    assertThat(e.awsErrorDetails().errorCode()).isEqualTo("BadDigest");
                });
        CompleteMultipartUploadResponse done = s3.completeMultipartUpload(b -> b.bucket(bucket).key(key)
                .uploadId(id).checksumCRC32(expected).multipartUpload(m -> m.parts(parts)));
        assertThat(done.checksumCRC32()).isEqualTo(expected);
        assertThat(done.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
        HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key).checksumMode(ChecksumMode.ENABLED));
        assertThat(head.checksumCRC32()).isEqualTo(expected);
        assertThat(head.checksumType()).isEqualTo(ChecksumType.COMPOSITE);
    }

    private static String crc32(byte[] bytes) {
        CRC32 crc = new CRC32();
        crc.update(bytes);
        return base64((int) crc.getValue());
    }

    private static String base64(int value) {
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt(value).array());
    }
}
