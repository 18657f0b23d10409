package io.promptcache.storage.s3;

import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.Bucket;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.EncodingType;
import software.amazon.awssdk.services.s3.model.ListBucketsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectVersionsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Listings as S3 defines them (AWS SDK v2 on a real socket): ListObjects v1 with markers, ListObjectsV2 with
 * {@code encoding-type=url} and {@code fetch-owner}, ListObjectVersions and GetBucketVersioning of a node without
 * versioning, GetBucketLocation, ListBuckets in pages.
 */
@QuarkusTest
class ListingTest extends SdkBucketFixture {

    /** Keys with a top level, folders, a key equal to a folder's name, and characters that need encoding. */
    private static final List<String> KEYS = List.of("a", "b/1", "b/2", "b/3", "c/", "c/x", "c/y/z", "d e+f%g",
            "e/\u00e9t\u00e9", "f&<>\"'", "g");

    private void putKeys() {
        for (String key : KEYS) {
            s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString(key));
        }
    }

    @Test
    void shouldPageListObjectsV1WithMarkersAndCommonPrefixes() {
        putKeys();
        // Given: pages of two under the delimiter, resumed from NextMarker
        List<String> seen = new ArrayList<>();
        String marker = null;
        int pages = 0;
        do {
            String from = marker;
            ListObjectsResponse page = s3.listObjects(b -> b.bucket(bucket).delimiter("/").maxKeys(2).marker(from));
            page.contents().forEach(o -> seen.add(o.key()));
            page.commonPrefixes().forEach(p -> seen.add(p.prefix()));
            assertThat(page.maxKeys()).isEqualTo(2);
            page.contents().forEach(o -> assertThat(o.owner().id()).isEqualTo("promptcache"));
            marker = page.isTruncated() ? page.nextMarker() : null;
            assertThat(pages++).isLessThan(20);
        } while (marker != null);

        // Then: every top-level key and folder exactly once (a page lists its keys, then its folders)
        assertThat(seen).containsExactlyInAnyOrder("a", "b/", "c/", "d e+f%g", "e/", "f&<>\"'", "g");

        // a prefix and a folder named like a key: "c/" is an object under prefix "c/", its contents roll up
        ListObjectsResponse folder = s3.listObjects(b -> b.bucket(bucket).prefix("c/").delimiter("/").maxKeys(1));
        assertThat(folder.contents()).extracting(S3Object::key).containsExactly("c/");
        assertThat(folder.nextMarker()).isEqualTo("c/");
        ListObjectsResponse rest = s3.listObjects(b -> b.bucket(bucket).prefix("c/").delimiter("/").marker("c/"));
        assertThat(rest.contents()).extracting(S3Object::key).containsExactly("c/x");
        assertThat(rest.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("c/y/");
        assertThat(rest.isTruncated()).isFalse();
        // the same in ListObjectsV2: the token after the object "c/" does not skip the keys under "c/"
        ListObjectsV2Response first = s3.listObjectsV2(b -> b.bucket(bucket).prefix("c/").delimiter("/").maxKeys(1));
        assertThat(first.contents()).extracting(S3Object::key).containsExactly("c/");
        ListObjectsV2Response second = s3.listObjectsV2(b -> b.bucket(bucket).prefix("c/").delimiter("/")
                .continuationToken(first.nextContinuationToken()));
        assertThat(second.contents()).extracting(S3Object::key).containsExactly("c/x");
        assertThat(second.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("c/y/");
        // without a delimiter, a marker is just the last key seen
        assertThat(s3.listObjects(b -> b.bucket(bucket).marker("c/x")).contents()).extracting(S3Object::key)
                .containsExactly("c/y/z", "d e+f%g", "e/\u00e9t\u00e9", "f&<>\"'", "g");
    }

    @Test
    void shouldUrlEncodeKeysWhenAskedAndFetchOwners() throws Exception {
        putKeys();
        // the SDK asks for url encoding and decodes: every key comes back as it was stored
        ListObjectsV2Response encoded = s3.listObjectsV2(b -> b.bucket(bucket).encodingType(EncodingType.URL)
                .fetchOwner(true));
        assertThat(encoded.contents()).extracting(S3Object::key).containsExactlyElementsOf(KEYS);
        assertThat(encoded.contents()).allSatisfy(o -> assertThat(o.owner().id()).isEqualTo("promptcache"));
        assertThat(s3.listObjectsV2(b -> b.bucket(bucket)).contents()).allSatisfy(o -> assertThat(o.owner())
                .isNull());
        assertThat(s3.listObjects(b -> b.bucket(bucket).encodingType(EncodingType.URL).prefix("d e"))
                .contents()).extracting(S3Object::key).containsExactly("d e+f%g");

        // on the wire: the keys and the prefix are percent-encoded (a space as %20, which a client that percent-decodes
        // reads back as a space; it read a '+' as itself, issue 73), the encoding is named
        String xml = rawGet("/" + bucket + "?list-type=2&encoding-type=url&prefix=d%20e");
        assertThat(xml).contains("<Key>d%20e%2Bf%25g</Key>", "<Prefix>d%20e</Prefix>",
                "<EncodingType>url</EncodingType>");
        assertThat(rawGet("/" + bucket + "?encoding-type=url&prefix=e/")).contains("<Key>e/%C3%A9t%C3%A9</Key>");
        assertThatThrownBy(() -> s3.listObjectsV2(b -> b.bucket(bucket).encodingType("base64")))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(400));
    }

    @Test
    void shouldListOneNullVersionPerKey() {
        putKeys();
        List<String> keys = new ArrayList<>();
        String keyMarker = null;
        String versionMarker = null;
        int pages = 0;
        do {
            String k = keyMarker;
            String v = versionMarker;
            ListObjectVersionsResponse page = s3.listObjectVersions(b -> b.bucket(bucket).maxKeys(3).keyMarker(k)
                    .versionIdMarker(v));
            page.versions().forEach(version -> {
                assertThat(version.versionId()).isEqualTo("null");
                assertThat(version.isLatest()).isTrue();
                keys.add(version.key());
            });
            assertThat(page.deleteMarkers()).isEmpty();
            keyMarker = page.isTruncated() ? page.nextKeyMarker() : null;
            versionMarker = page.isTruncated() ? page.nextVersionIdMarker() : null;
            assertThat(pages++).isLessThan(20);
        } while (keyMarker != null);
        assertThat(keys).containsExactlyElementsOf(KEYS);

        ListObjectVersionsResponse folders = s3.listObjectVersions(b -> b.bucket(bucket).delimiter("/"));
        assertThat(folders.commonPrefixes()).extracting(CommonPrefix::prefix).containsExactly("b/", "c/", "e/");
        assertThat(s3.getBucketVersioning(b -> b.bucket(bucket)).status()).isNull();
        assertThat(s3.getBucketLocation(b -> b.bucket(bucket)).locationConstraintAsString()).isEmpty();
        assertThatThrownBy(() -> s3.listObjectVersions(b -> b.bucket(bucket).keyMarker("a")
                .versionIdMarker("3HL4kqtJlcpXroDTDmJ"))).isInstanceOfSatisfying(S3Exception.class,
                        e -> assertThat(e.statusCode()).isEqualTo(400));
        assertThatThrownBy(() -> s3.getBucketVersioning(b -> b.bucket("no-such-" + bucket)))
                .isInstanceOfSatisfying(S3Exception.class, e -> assertThat(e.statusCode()).isEqualTo(404));
    }

    @Test
    void shouldPageListBuckets() {
        String prefix = "lb-" + UUID.randomUUID().toString().substring(0, 8) + "-";
        for (String name : List.of("a", "b", "c", "d", "e")) {
            s3.createBucket(b -> b.bucket(prefix + name));
        }
        List<String> names = new ArrayList<>();
        String token = null;
        int pages = 0;
        do {
            String t = token;
            ListBucketsResponse page = s3.listBuckets(b -> b.prefix(prefix).maxBuckets(2).continuationToken(t));
            assertThat(page.buckets()).hasSizeLessThanOrEqualTo(2);
            page.buckets().stream().map(Bucket::name).forEach(names::add);
            token = page.continuationToken();
            pages++;
        } while (token != null && pages < 10);
        assertThat(pages).isEqualTo(3);
        assertThat(names).containsExactly(prefix + "a", prefix + "b", prefix + "c", prefix + "d", prefix + "e");
        assertThat(s3.listBuckets(b -> b.prefix(prefix).bucketRegion("eu-west-1")).buckets()).isEmpty();
        assertThat(s3.listBuckets().buckets()).extracting(Bucket::name).contains(prefix + "e", bucket);
        assertThatThrownBy(() -> s3.listBuckets(b -> b.maxBuckets(0))).isInstanceOfSatisfying(S3Exception.class,
                e -> assertThat(e.statusCode()).isEqualTo(400));
    }

    private String rawGet(String pathAndQuery) throws Exception {
        HttpURLConnection c = (HttpURLConnection) URI.create(endpoint.toString().replaceAll("/$", "") + pathAndQuery)
                .toURL().openConnection();
        try {
            assertThat(c.getResponseCode()).isEqualTo(200);
            return new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } finally {
            c.disconnect();
        }
    }
}
