package io.promptcache.storage.s3;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.w3c.dom.Element;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.MultipartUploads;
import io.promptcache.storage.store.ObjectMeta;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/** CreateMultipartUpload, CompleteMultipartUpload, AbortMultipartUpload, ListParts (UploadPart streams in PUT). */
final class MultipartHandlers {

    private static final String NS = S3Xml.NS;
    private static final String HEADER = S3Xml.HEADER;

    private static final String CHECKSUM_ALGORITHM = "x-amz-checksum-algorithm";

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
            refs.add(new MultipartUploads.PartRef(partNumber(XmlRequests.childText(part, "PartNumber").trim()),
                    XmlRequests.childText(part, "ETag")));
        }
        ObjectMeta meta = uploads.complete(path.bucket(), path.key(), uploadId(ctx), refs,
                Preconditions.writeCondition(ctx.request().headers()));
        xml(ctx, HEADER + "<CompleteMultipartUploadResult" + NS + "><Location>" + S3Xml.escape(path.resource())
                + "</Location><Bucket>" + S3Xml.escape(path.bucket()) + "</Bucket><Key>" + S3Xml.escape(path.key())
                + "</Key><ETag>" + S3Xml.escape(S3Headers.quotedEtag(meta.etag()))
                + "</ETag></CompleteMultipartUploadResult>");
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
                    .append(part.meta().size()).append("</Size></Part>");
        }
        xml(ctx, xml.append("</ListPartsResult>").toString());
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
