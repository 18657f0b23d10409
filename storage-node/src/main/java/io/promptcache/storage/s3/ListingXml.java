package io.promptcache.storage.s3;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import io.promptcache.schema.secret.SigV4;
import io.promptcache.storage.store.ListPage;
import io.promptcache.storage.store.MultipartUploads;

/**
 * The listing documents of the S3 API: ListObjects (v1 and v2), ListObjectVersions, ListMultipartUploads,
 * ListBuckets. With
 * {@code encoding-type=url} every key and prefix in them is percent-encoded (UTF-8, as S3 does; {@code /} is kept).
 */
final class ListingXml {

    private final StringBuilder xml = new StringBuilder(S3Xml.HEADER);
    private final UnaryOperator<String> encode;

    private ListingXml(String root, boolean urlEncoded) {
        this.encode = urlEncoded ? ListingXml::urlEncode : UnaryOperator.identity();
        xml.append('<').append(root).append(S3Xml.NS).append('>');
    }

    /** The parameters of a listing request that its answer echoes. */
    record Request(String bucket, String prefix, String delimiter, int maxKeys, boolean urlEncoded,
            boolean fetchOwner) {
    }

    /** ListObjects (v1): Marker, NextMarker (the last key or common prefix, when truncated), Owner always. */
    static String listObjectsV1(Request request, String marker, ListPage page) {
        ListingXml doc = new ListingXml("ListBucketResult", request.urlEncoded());
        doc.common(request);
        doc.element("Marker", marker == null ? "" : marker, true);
        if (page.truncated()) {
            doc.element("NextMarker", page.nextMarker(), true);
        }
        doc.element("IsTruncated", Boolean.toString(page.truncated()), false);
        doc.contents(page, true);
        return doc.end("ListBucketResult");
    }

    /** ListObjectsV2: StartAfter, ContinuationToken, KeyCount, NextContinuationToken; Owner with fetch-owner. */
    static String listObjectsV2(Request request, String startAfter, String token, String nextToken, ListPage page) {
        ListingXml doc = new ListingXml("ListBucketResult", request.urlEncoded());
        doc.common(request);
        if (startAfter != null) {
            doc.element("StartAfter", startAfter, true);
        }
        if (token != null) {
            doc.element("ContinuationToken", token, false);
        }
        doc.element("KeyCount", Integer.toString(page.objects().size() + page.commonPrefixes().size()), false);
        doc.element("IsTruncated", Boolean.toString(page.truncated()), false);
        if (nextToken != null) {
            doc.element("NextContinuationToken", nextToken, false);
        }
        doc.contents(page, request.fetchOwner());
        return doc.end("ListBucketResult");
    }

    /** ListObjectVersions of a node without versioning: one version per key, its id {@code null}, the latest. */
    static String listObjectVersions(Request request, String keyMarker, String versionIdMarker, ListPage page) {
        ListingXml doc = new ListingXml("ListVersionsResult", request.urlEncoded());
        doc.common(request);
        doc.element("KeyMarker", keyMarker == null ? "" : keyMarker, true);
        doc.element("VersionIdMarker", versionIdMarker == null ? "" : versionIdMarker, false);
        if (page.truncated()) {
            doc.element("NextKeyMarker", page.nextMarker(), true);
            doc.element("NextVersionIdMarker", "null", false);
        }
        doc.element("IsTruncated", Boolean.toString(page.truncated()), false);
        for (ListPage.Entry e : page.objects()) {
            doc.xml.append("<Version>");
            doc.element("Key", e.key(), true);
            doc.element("VersionId", "null", false);
            doc.element("IsLatest", "true", false);
            doc.object(e, true);
            doc.xml.append("</Version>");
        }
        doc.commonPrefixes(page);
        return doc.end("ListVersionsResult");
    }

    /** ListMultipartUploads: the uploads in progress, each with its initiator and owner (the node's one identity). */
    static String listMultipartUploads(Request request, String keyMarker, String uploadIdMarker,
            MultipartUploads.UploadPage page) {
        ListingXml doc = new ListingXml("ListMultipartUploadsResult", request.urlEncoded());
        doc.element("Bucket", request.bucket(), false);
        doc.element("KeyMarker", keyMarker == null ? "" : keyMarker, true);
        doc.element("UploadIdMarker", uploadIdMarker == null ? "" : uploadIdMarker, false);
        if (page.truncated()) {
            doc.element("NextKeyMarker", page.nextKeyMarker(), true);
            doc.element("NextUploadIdMarker", page.nextUploadIdMarker() == null ? "" : page.nextUploadIdMarker(),
                    false);
        }
        doc.element("Prefix", request.prefix() == null ? "" : request.prefix(), true);
        if (request.delimiter() != null) {
            doc.element("Delimiter", request.delimiter(), true);
        }
        doc.element("MaxUploads", Integer.toString(request.maxKeys()), false);
        doc.element("IsTruncated", Boolean.toString(page.truncated()), false);
        if (request.urlEncoded()) {
            doc.element("EncodingType", "url", false);
        }
        for (MultipartUploads.Listed listed : page.uploads()) {
            doc.xml.append("<Upload>");
            doc.element("Key", listed.upload().key(), true);
            doc.element("UploadId", listed.uploadId(), false);
            doc.xml.append("<Initiator>");
            doc.element("ID", S3Xml.OWNER, false);
            doc.element("DisplayName", S3Xml.OWNER, false);
            doc.xml.append("</Initiator>");
            doc.owner();
            doc.element("StorageClass", "STANDARD", false);
            doc.element("Initiated", S3Xml.iso(listed.upload().initiatedMs()), false);
            doc.xml.append("</Upload>");
        }
        doc.commonPrefixes(page.commonPrefixes());
        return doc.end("ListMultipartUploadsResult");
    }

    /** ListBuckets: one page, with the token of the next when {@code nextToken} is not null. */
    static String listBuckets(Map<String, Long> buckets, String prefix, String nextToken) {
        ListingXml doc = new ListingXml("ListAllMyBucketsResult", false);
        doc.owner();
        doc.xml.append("<Buckets>");
        buckets.forEach((name, created) -> {
            doc.xml.append("<Bucket>");
            doc.element("Name", name, false);
            doc.element("CreationDate", S3Xml.iso(created), false);
            doc.xml.append("</Bucket>");
        });
        doc.xml.append("</Buckets>");
        if (nextToken != null) {
            doc.element("ContinuationToken", nextToken, false);
        }
        if (prefix != null) {
            doc.element("Prefix", prefix, false);
        }
        return doc.end("ListAllMyBucketsResult");
    }

    private void common(Request request) {
        element("Name", request.bucket(), false);
        element("Prefix", request.prefix() == null ? "" : request.prefix(), true);
        if (request.delimiter() != null) {
            element("Delimiter", request.delimiter(), true);
        }
        element("MaxKeys", Integer.toString(request.maxKeys()), false);
        if (request.urlEncoded()) {
            element("EncodingType", "url", false);
        }
    }

    private void contents(ListPage page, boolean owner) {
        for (ListPage.Entry e : page.objects()) {
            xml.append("<Contents>");
            element("Key", e.key(), true);
            object(e, owner);
            xml.append("</Contents>");
        }
        commonPrefixes(page);
    }

    private void object(ListPage.Entry e, boolean owner) {
        element("LastModified", S3Xml.iso(e.meta().lastModified()), false);
        element("ETag", S3Headers.quotedEtag(e.meta().etag()), false);
        element("Size", Long.toString(e.meta().size()), false);
        if (owner) {
            owner();
        }
        element("StorageClass", "STANDARD", false);
    }

    private void commonPrefixes(ListPage page) {
        commonPrefixes(page.commonPrefixes());
    }

    private void commonPrefixes(List<String> prefixes) {
        for (String p : prefixes) {
            xml.append("<CommonPrefixes>");
            element("Prefix", p, true);
            xml.append("</CommonPrefixes>");
        }
    }

    private void owner() {
        xml.append("<Owner>");
        element("ID", S3Xml.OWNER, false);
        element("DisplayName", S3Xml.OWNER, false);
        xml.append("</Owner>");
    }

    /** An element; {@code keyLike} values (keys, prefixes, markers) are URL-encoded when the request asked. */
    private void element(String name, String value, boolean keyLike) {
        xml.append('<').append(name).append('>').append(S3Xml.escape(keyLike ? encode.apply(value) : value))
                .append("</").append(name).append('>');
    }

    private String end(String root) {
        return xml.append("</").append(root).append('>').toString();
    }

    /**
     * A key or prefix as S3 encodes it for {@code encoding-type=url}: percent-encoded UTF-8 but for the unreserved
     * characters and {@code /} (a space is {@code %20}, never {@code +}: a client that percent-decodes would read a
     * {@code +} as itself).
     */
    static String urlEncode(String value) {
        return SigV4.encode(value, false);
    }
}
