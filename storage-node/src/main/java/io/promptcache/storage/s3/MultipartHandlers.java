package io.promptcache.storage.s3;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import org.w3c.dom.Element;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ClientChecksums;
import io.promptcache.storage.store.MultipartUploads;
import io.promptcache.storage.store.ObjectMeta;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/** CreateMultipartUpload, CompleteMultipartUpload, AbortMultipartUpload, ListParts (UploadPart streams in PUT). */
final class MultipartHandlers {

    private static final String NS = S3Xml.NS;
    private static final String HEADER = S3Xml.HEADER;

    private static final String CHECKSUM_ALGORITHM = "x-amz-checksum-algorithm";
    /** The XML element of each checksum algorithm (lower case, as in {@code x-amz-checksum-<algorithm>}). */
    private static final Map<String, String> CHECKSUM_ELEMENTS = Collections.unmodifiableSortedMap(new TreeMap<>(
            Map.of("crc32", "ChecksumCRC32", "crc32c", "ChecksumCRC32C", "crc64nvme", "ChecksumCRC64NVME", "sha1",
                    "ChecksumSHA1", "sha256", "ChecksumSHA256")));

    private final MultipartUploads uploads;

    MultipartHandlers(MultipartUploads uploads) {
        this.uploads = uploads;
    }

    void create(RoutingContext ctx, S3Path path) {
        String algorithm = ctx.request().getHeader(CHECKSUM_ALGORITHM);
        if (algorithm != null) {
            // each part is then sent with, and verified against, a checksum of this algorithm
            ChecksumVerifier.forAlgorithm(algorithm);
            ctx.response().putHeader(CHECKSUM_ALGORITHM, algorithm.toUpperCase(Locale.ROOT));
        }
        String uploadId = uploads.create(path.bucket(), path.key(), S3Headers.objectHeaders(ctx.request().headers()));
        xml(ctx, HEADER + "<InitiateMultipartUploadResult" + NS + "><Bucket>" + S3Xml.escape(path.bucket())
                + "</Bucket><Key>" + S3Xml.escape(path.key()) + "</Key><UploadId>" + uploadId
                + "</UploadId></InitiateMultipartUploadResult>");
    }

    void complete(RoutingContext ctx, S3Path path) throws Exception {
        Buffer body = ctx.body().buffer();
        Element root = XmlRequests.parse(body == null ? new byte[0] : body.getBytes(), "CompleteMultipartUpload");
        List<MultipartUploads.PartRef> refs = new ArrayList<>();
        for (Element part : XmlRequests.children(root, "Part")) {
            Map<String, String> checksums = new HashMap<>();
            for (String algorithm : CHECKSUM_ELEMENTS.keySet()) {
                String value = XmlRequests.childTextOrNull(part, CHECKSUM_ELEMENTS.get(algorithm));
                if (value != null) {
                    checksums.put(algorithm, value);
                }
            }
            refs.add(new MultipartUploads.PartRef(partNumber(XmlRequests.childText(part, "PartNumber").trim()),
                    XmlRequests.childText(part, "ETag"), checksums));
        }
        // the checksum the client claims for the whole object, checked against the parts' composite
        Map<String, String> claimed = new HashMap<>();
        ctx.request().headers().forEach((name, value) -> {
            String algorithm = ClientChecksums.algorithmOf(name);
            if (algorithm != null) {
                claimed.put(algorithm, value);
            }
        });
        ObjectMeta meta = uploads.complete(path.bucket(), path.key(), uploadId(ctx), refs,
                Preconditions.writeCondition(ctx.request().headers()), claimed);
        // the object's checksum and its type, as S3 answers them (COMPOSITE of the parts': ClientChecksums)
        StringBuilder checksum = checksums(meta.headers());
        String type = meta.headers().get(ClientChecksums.TYPE);
        if (checksum.length() > 0 && type != null) {
            checksum.append("<ChecksumType>").append(S3Xml.escape(type)).append("</ChecksumType>");
        }
        xml(ctx, HEADER + "<CompleteMultipartUploadResult" + NS + "><Location>" + S3Xml.escape(path.resource())
                + "</Location><Bucket>" + S3Xml.escape(path.bucket()) + "</Bucket><Key>" + S3Xml.escape(path.key())
                + "</Key><ETag>" + S3Xml.escape(S3Headers.quotedEtag(meta.etag())) + "</ETag>" + checksum
                + "</CompleteMultipartUploadResult>");
    }

    void abort(RoutingContext ctx, S3Path path) {
        uploads.abort(path.bucket(), path.key(), uploadId(ctx));
        ctx.response().setStatusCode(204).end();
    }

    void listParts(RoutingContext ctx, S3Path path) {
        String uploadId = uploadId(ctx);
        StringBuilder xml = new StringBuilder(HEADER).append("<ListPartsResult").append(NS).append("><Bucket>")
                .append(S3Xml.escape(path.bucket())).append("</Bucket><Key>").append(S3Xml.escape(path.key()))
                .append("</Key><UploadId>").append(uploadId).append("</UploadId><IsTruncated>false</IsTruncated>");
        for (MultipartUploads.Part part : uploads.parts(path.bucket(), path.key(), uploadId)) {
            xml.append("<Part><PartNumber>").append(part.number()).append("</PartNumber><LastModified>")
                    .append(S3Xml.iso(part.meta().lastModified())).append("</LastModified><ETag>")
                    .append(S3Xml.escape(S3Headers.quotedEtag(part.meta().etag()))).append("</ETag><Size>")
                    .append(part.meta().size()).append("</Size>").append(checksums(part.meta().headers()))
                    .append("</Part>");
        }
        xml(ctx, xml.append("</ListPartsResult>").toString());
    }

    /** The {@code Checksum<ALGORITHM>} elements of the client checksums kept in {@code headers} (S3's order). */
    private static StringBuilder checksums(Map<String, String> headers) {
        StringBuilder xml = new StringBuilder();
        CHECKSUM_ELEMENTS.forEach((algorithm, element) -> {
            String value = headers.get(ClientChecksums.PREFIX + algorithm);
            if (value != null) {
                xml.append('<').append(element).append('>').append(S3Xml.escape(value)).append("</").append(element)
                        .append('>');
            }
        });
        return xml;
    }

    static String uploadId(RoutingContext ctx) {
        return ctx.request().getParam("uploadId");
    }

    static int partNumber(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Part number must be an integer: " + value);
        }
    }

    private static void xml(RoutingContext ctx, String body) {
        S3Xml.send(ctx, body);
    }
}
