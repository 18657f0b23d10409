package io.promptcache.storage.s3;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import org.w3c.dom.Element;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.Digests;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;

/**
 * DeleteObjects ({@code POST /bucket?delete}): up to 1000 keys in one XML request; each deleted idempotently; in
 * quiet mode only failures are listed. The XML is parsed with DTDs and external entities disabled.
 */
final class DeleteObjectsHandler {

    static final int MAX_KEYS = 1000;
    /** 1000 keys of 1024 bytes plus markup fit well within this. */
    static final int MAX_BODY_BYTES = 2 * 1024 * 1024;

    private final ObjectStore store;

    DeleteObjectsHandler(ObjectStore store) {
        this.store = store;
    }

    void handle(RoutingContext ctx, S3Path path) {
        store.bucketCreated(path.bucket());
        Buffer body = ctx.body().buffer();
        byte[] xml = body == null ? new byte[0] : body.getBytes();
        verifyContentMd5(ctx.request().getHeader("Content-MD5"), xml);
        Request request = parse(xml);
        StringBuilder result = new StringBuilder(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<DeleteResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
        for (String key : request.keys()) {
            try {
                store.delete(path.bucket(), key);
                if (!request.quiet()) {
                    result.append("<Deleted><Key>").append(S3Xml.escape(key)).append("</Key></Deleted>");
                }
            } catch (S3Exception e) {
                result.append("<Error><Key>").append(S3Xml.escape(key)).append("</Key><Code>")
                        .append(e.error().code()).append("</Code><Message>").append(S3Xml.escape(e.getMessage()))
                        .append("</Message></Error>");
            }
        }
        ctx.response().putHeader("Content-Type", S3Xml.CONTENT_TYPE).end(result.append("</DeleteResult>").toString());
    }

    private record Request(boolean quiet, List<String> keys) {
    }

    private static Request parse(byte[] xml) {
        Element root = XmlRequests.parse(xml, "Delete");
        List<Element> quiet = XmlRequests.children(root, "Quiet");
        List<String> keys = new ArrayList<>();
        for (Element object : XmlRequests.children(root, "Object")) {
            String key = XmlRequests.childText(object, "Key");
            if (key.isEmpty()) {
                throw XmlRequests.malformed("every <Object> needs a non-empty <Key>");
            }
            keys.add(key);
        }
        if (keys.isEmpty() || keys.size() > MAX_KEYS) {
            throw XmlRequests.malformed("a <Delete> request names 1 to " + MAX_KEYS + " objects, this one "
                    + keys.size());
        }
        return new Request(!quiet.isEmpty() && Boolean.parseBoolean(quiet.get(0).getTextContent().trim()), keys);
    }

    private static void verifyContentMd5(String header, byte[] body) {
        byte[] expected = S3Headers.contentMd5(header);
        if (expected == null) {
            return;
        }
        if (!MessageDigest.isEqual(expected, Digests.md5().digest(body))) {
            throw new S3Exception(S3ErrorCode.BAD_DIGEST);
        }
    }
}
