package io.promptcache.storage.s3;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListMultipartUploadsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Multipart beyond upload and complete (AWS SDK v2 on a real socket): ListMultipartUploads with markers and folders,
 * GetObject and HeadObject by {@code partNumber} (PartsCount), a part sent again after a later part.
 */
@QuarkusTest
class MultipartCompatTest extends SdkBucketFixture {

    private static final int MIB = 1 << 20;

    @Test
    void shouldListUploadsInProgressWithMarkersAndFolders() {
        List<String> keys = List.of("a", "b/1", "b/2", "c", "c");
        List<String> ids = new ArrayList<>();
        for (String key : keys) {
            ids.add(s3.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId());
        }
        // Given: pages of two, resumed from the next markers
        List<String> seen = new ArrayList<>();
        String keyMarker = null;
        String idMarker = null;
        int pages = 0;
        do {
            String k = keyMarker;
            String i = idMarker;
            ListMultipartUploadsResponse page = s3.listMultipartUploads(b -> b.bucket(bucket).maxUploads(2)
                    .keyMarker(k).uploadIdMarker(i));
            page.uploads().forEach(u -> {
                seen.add(u.key() + "#" + u.uploadId());
                assertThat(u.initiated()).isNotNull();
                assertThat(u.owner().id()).isEqualTo("promptcache");
            });
            keyMarker = page.isTruncated() ? page.nextKeyMarker() : null;
            idMarker = page.isTruncated() ? page.nextUploadIdMarker() : null;
            assertThat(pages++).isLessThan(10);
        } while (keyMarker != null);

        // Then: every upload once, by key (two uploads of "c" both listed; started in the same millisecond, their
        // order is by id)
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            expected.add(keys.get(i) + "#" + ids.get(i));
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(seen).extracting(entry -> entry.substring(0, entry.indexOf('#'))).containsExactlyElementsOf(keys);
        // pages of one under a delimiter: a page that ends on a folder resumes after it
        List<String> walked = new ArrayList<>();
        keyMarker = null;
        idMarker = null;
        pages = 0;
        do {
            String k = keyMarker;
            String i = idMarker;
            ListMultipartUploadsResponse page = s3.listMultipartUploads(b -> b.bucket(bucket).delimiter("/")
                    .maxUploads(1).keyMarker(k).uploadIdMarker(i));
            page.uploads().forEach(u -> walked.add(u.key()));
            page.commonPrefixes().forEach(p -> walked.add(p.prefix()));
            keyMarker = page.isTruncated() ? page.nextKeyMarker() : null;
            idMarker = page.isTruncated() ? page.nextUploadIdMarker() : null;
            assertThat(pages++).isLessThan(10);
        } while (keyMarker != null);
        assertThat(walked).containsExactly("a", "b/", "c", "c");
        ListMultipartUploadsResponse folders = s3.listMultipartUploads(b -> b.bucket(bucket).delimiter("/"));
        assertThat(folders.uploads()).extracting(MultipartUpload::key).containsExactly("a", "c", "c");
        assertThat(folders.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("b/");
        assertThat(s3.listMultipartUploads(b -> b.bucket(bucket).prefix("b/")).uploads()).hasSize(2);

        // an aborted upload is no longer listed
        s3.abortMultipartUpload(b -> b.bucket(bucket).key("a").uploadId(ids.get(0)));
        assertThat(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads()).extracting(MultipartUpload::uploadId)
                .doesNotContain(ids.get(0)).hasSize(4);
    }

    @Test
    void shouldReadAMultipartObjectByPartNumber() {
        // Given: three parts (5 MiB, 5 MiB, 1 KiB), part 1 sent again after part 2 completed
        byte[][] parts = {random(5 * MIB, 1), random(5 * MIB, 2), random(1024, 3)};
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("mp")).uploadId();
        List<CompletedPart> completed = new ArrayList<>();
        for (int n = 1; n <= parts.length; n++) {
            completed.add(upload(uploadId, n, parts[n - 1]));
        }
        parts[0] = random(5 * MIB, 4);
        completed.set(0, upload(uploadId, 1, parts[0]));
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("mp").uploadId(uploadId)
                .multipartUpload(m -> m.parts(completed)));

        // Then: each part is served by its number, with the parts count
        for (int n = 1; n <= parts.length; n++) {
            int number = n;
            ResponseBytes<GetObjectResponse> part = s3.getObjectAsBytes(b -> b.bucket(bucket).key("mp")
                    .partNumber(number));
            assertThat(Arrays.equals(part.asByteArray(), parts[n - 1])).as("part " + n).isTrue();
            assertThat(part.response().partsCount()).isEqualTo(3);
            HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key("mp").partNumber(number));
            assertThat(head.contentLength()).isEqualTo(parts[n - 1].length);
            assertThat(head.partsCount()).isEqualTo(3);
        }
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("mp")).asByteArray()).hasSize(10 * MIB + 1024);
        assertStatus(400, "InvalidPart", () -> s3.getObject(b -> b.bucket(bucket).key("mp").partNumber(4)));
        assertStatus(400, "InvalidRequest", () -> s3.getObject(b -> b.bucket(bucket).key("mp").partNumber(1)
                .range("bytes=0-1")));
        assertStatus(400, "InvalidArgument", () -> s3.getObject(b -> b.bucket(bucket).key("mp").partNumber(0)));
    }

    @Test
    void shouldServeAPlainObjectAsItsOnlyPart() {
        byte[] body = random(1000, 5);
        s3.putObject(b -> b.bucket(bucket).key("plain"), RequestBody.fromBytes(body));
        ResponseBytes<GetObjectResponse> whole = s3.getObjectAsBytes(b -> b.bucket(bucket).key("plain")
                .partNumber(1));
        assertThat(whole.asByteArray()).isEqualTo(body);
        assertThat(whole.response().partsCount()).isNull();
        assertStatus(400, "InvalidPart", () -> s3.getObject(b -> b.bucket(bucket).key("plain").partNumber(2)));
    }

    @Test
    void shouldReadAContinuationByPartNumber() {
        // a continuation object: a copied prefix (part 1) and new bytes (part 2)
        byte[] parent = random(3 * MIB, 6);
        byte[] tail = random(MIB, 7);
        s3.putObject(b -> b.bucket(bucket).key("parent"), RequestBody.fromBytes(parent));
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("child")).uploadId();
        String copied = s3.uploadPartCopy(b -> b.sourceBucket(bucket).sourceKey("parent").destinationBucket(bucket)
                .destinationKey("child").uploadId(uploadId).partNumber(1).copySourceRange("bytes=0-" + (2 * MIB - 1)))
                .copyPartResult().eTag();
        CompletedPart second = upload("child", uploadId, 2, tail);
        s3.completeMultipartUpload(b -> b.bucket(bucket).key("child").uploadId(uploadId).multipartUpload(m -> m
                .parts(CompletedPart.builder().partNumber(1).eTag(copied).build(), second)));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("child").partNumber(1)).asByteArray())
                .isEqualTo(Arrays.copyOf(parent, 2 * MIB));
        assertThat(s3.getObjectAsBytes(b -> b.bucket(bucket).key("child").partNumber(2)).asByteArray())
                .isEqualTo(tail);
    }

    private CompletedPart upload(String uploadId, int number, byte[] bytes) {
        return upload("mp", uploadId, number, bytes);
    }

    private CompletedPart upload(String key, String uploadId, int number, byte[] bytes) {
        String etag = s3.uploadPart(b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(number),
                RequestBody.fromBytes(bytes)).eTag();
        return CompletedPart.builder().partNumber(number).eTag(etag).build();
    }

    private static byte[] random(int size, long seed) {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    private static void assertStatus(int status, String code, ThrowingCallable call) {
        assertThatThrownBy(call).isInstanceOfSatisfying(S3Exception.class, e -> {
            assertThat(e.statusCode()).isEqualTo(status);
            if (e.awsErrorDetails().errorCode() != null) {
                assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
            }
        });
    }
}
