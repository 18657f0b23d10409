package io.promptcache.storage.s3;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ListPage;
import io.promptcache.storage.store.MultipartUploads;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;

/**
 * Listings and bucket queries: ListObjects v1 and v2, ListObjectVersions (no versioning: one {@code null} version
 * per key), ListMultipartUploads, ListBuckets with pages, GetBucketVersioning (never enabled), GetBucketLocation.
 */
final class ListingHandlers {

    private static final int MAX_KEYS = 1000;
    private static final int MAX_BUCKETS = 10_000;

    private final ObjectStore store;
    private final String region;

    ListingHandlers(ObjectStore store, String region) {
        this.store = store;
        this.region = region;
    }

    void listObjects(RoutingContext ctx, S3Path path) {
        HttpServerRequest req = ctx.request();
        String listType = req.getParam("list-type");
        if (listType != null && !listType.equals("2")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "list-type must be 2 (ListObjectsV2) or absent "
                    + "(ListObjects), not " + listType + ".");
        }
        ListingXml.Request request = request(req, path, "true".equals(req.getParam("fetch-owner")));
        if (listType == null) {
            String marker = req.getParam("marker");
            String from = marker == null ? null : ListPage.resumeAfter(marker, request.prefix(), request.delimiter());
            S3Xml.send(ctx, ListingXml.listObjectsV1(request, marker, page(request, from)));
            return;
        }
        String startAfter = req.getParam("start-after");
        String token = req.getParam("continuation-token");
        ListPage page = page(request, token != null ? decodeToken(token) : startAfter);
        String next = page.truncated() ? encodeToken(page.nextStartAfter()) : null;
        S3Xml.send(ctx, ListingXml.listObjectsV2(request, startAfter, token, next, page));
    }

    void listObjectVersions(RoutingContext ctx, S3Path path) {
        HttpServerRequest req = ctx.request();
        ListingXml.Request request = request(req, path, true);
        String keyMarker = req.getParam("key-marker");
        String versionIdMarker = req.getParam("version-id-marker");
        if (versionIdMarker != null && (keyMarker == null || !versionIdMarker.equals("null"))) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, keyMarker == null
                    ? "A version-id marker cannot be specified without a key marker."
                    : "Invalid version id specified: this node keeps no object versions (every version id is null).");
        }
        String from = keyMarker == null ? null : ListPage.resumeAfter(keyMarker, request.prefix(), request.delimiter());
        S3Xml.send(ctx, ListingXml.listObjectVersions(request, keyMarker, versionIdMarker, page(request, from)));
    }

    void listMultipartUploads(RoutingContext ctx, S3Path path) {
        HttpServerRequest req = ctx.request();
        ListingXml.Request request = request(req, path, true, "max-uploads");
        String keyMarker = req.getParam("key-marker");
        String idMarker = req.getParam("upload-id-marker");
        // without a key marker S3 ignores it; empty, it is the NextUploadIdMarker of a page that ended on a folder
        String uploadIdMarker = keyMarker == null || idMarker == null || idMarker.isEmpty() ? null : idMarker;
        MultipartUploads.UploadPage page = store.multipart().list(path.bucket(), request.prefix(),
                request.delimiter(), keyMarker, uploadIdMarker, request.maxKeys());
        S3Xml.send(ctx, ListingXml.listMultipartUploads(request, keyMarker, uploadIdMarker, page));
    }

    void listBuckets(RoutingContext ctx) {
        HttpServerRequest req = ctx.request();
        int max = count(req.getParam("max-buckets"), MAX_BUCKETS, 1, "max-buckets");
        String prefix = req.getParam("prefix");
        String token = req.getParam("continuation-token");
        String after = token == null ? null : decodeToken(token);
        String bucketRegion = req.getParam("bucket-region");
        Map<String, Long> page = new LinkedHashMap<>();
        String next = null;
        if (bucketRegion == null || bucketRegion.equals(region)) {
            for (Map.Entry<String, Long> bucket : store.listBuckets().entrySet()) {
                String name = bucket.getKey();
                if ((prefix != null && !name.startsWith(prefix)) || (after != null && name.compareTo(after) <= 0)) {
                    continue;
                }
                if (page.size() == max) {
                    next = encodeToken(page.keySet().stream().reduce((a, b) -> b).orElseThrow());
                    break;
                }
                page.put(name, bucket.getValue());
            }
        }
        S3Xml.send(ctx, ListingXml.listBuckets(page, prefix, next));
    }

    void bucketVersioning(RoutingContext ctx, S3Path path) {
        store.bucketCreated(path.bucket());
        S3Xml.send(ctx, S3Xml.HEADER + "<VersioningConfiguration" + S3Xml.NS + "/>");
    }

    /** The node's region; empty for us-east-1, as S3 answers. */
    void bucketLocation(RoutingContext ctx, S3Path path) {
        store.bucketCreated(path.bucket());
        S3Xml.send(ctx, S3Xml.HEADER + "<LocationConstraint" + S3Xml.NS + ">"
                + (region.equals("us-east-1") ? "" : S3Xml.escape(region)) + "</LocationConstraint>");
    }

    private ListPage page(ListingXml.Request request, String startAfter) {
        return store.list(request.bucket(), request.prefix(), request.delimiter(), startAfter, request.maxKeys());
    }

    private static ListingXml.Request request(HttpServerRequest req, S3Path path, boolean owner) {
        return request(req, path, owner, "max-keys");
    }

    private static ListingXml.Request request(HttpServerRequest req, S3Path path, boolean owner, String maxName) {
        String encoding = req.getParam("encoding-type");
        if (encoding != null && !encoding.equals("url")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid Encoding Method specified in Request: "
                    + encoding + " (only url is).");
        }
        String delimiter = req.getParam("delimiter");
        return new ListingXml.Request(path.bucket(), req.getParam("prefix"),
                delimiter == null || delimiter.isEmpty() ? null : delimiter,
                count(req.getParam(maxName), MAX_KEYS, 0, maxName), encoding != null, owner);
    }

    /** A count parameter: absent is {@code max}; above {@code max} is capped (as S3 does for max-keys). */
    private static int count(String value, int max, int min, String name) {
        if (value == null) {
            return max;
        }
        try {
            int n = Integer.parseInt(value.trim());
            if (n < min) {
                throw new NumberFormatException();
            }
            return Math.min(n, max);
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, name + " must be an integer of at least " + min
                    + ": " + value);
        }
    }

    private static String encodeToken(String startAfter) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(startAfter.getBytes(StandardCharsets.UTF_8));
    }

    private static String decodeToken(String token) {
        try {
            return new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The continuation token is not valid.");
        }
    }
}
