package io.promptcache.storage.s3;

import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import org.w3c.dom.Element;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.Digests;
import io.promptcache.storage.store.ObjectStore;
import io.promptcache.storage.store.WriteCondition;
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
        for (Target target : request.targets()) {
            String key = target.key();
            try {
                store.delete(path.bucket(), key, target.condition());
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

    private record Request(boolean quiet, List<Target> targets) {
    }

    /** An object to delete, and its {@code <ETag>} (delete only if it still has it), if any. */
    private record Target(String key, WriteCondition condition) {
    }

    private static Request parse(byte[] xml) {
        Element root = XmlRequests.parse(xml, "Delete");
        List<Element> quiet = XmlRequests.children(root, "Quiet");
        List<Target> keys = new ArrayList<>();
        for (Element object : XmlRequests.children(root, "Object")) {
            String key = XmlRequests.childText(object, "Key");
            if (key.isEmpty()) {
                throw XmlRequests.malformed("every <Object> needs a non-empty <Key>");
            }
            refuseUnimplemented(object);
            List<Element> etag = XmlRequests.children(object, "ETag");
            keys.add(new Target(key, etag.isEmpty()
                    ? WriteCondition.NONE
                    : new WriteCondition(etag.get(0).getTextContent().trim(), false)));
        }
        if (keys.isEmpty() || keys.size() > MAX_KEYS) {
            throw XmlRequests.malformed("a <Delete> request names 1 to " + MAX_KEYS + " objects, this one "
                    + keys.size());
        }
        return new Request(!quiet.isEmpty() && Boolean.parseBoolean(quiet.get(0).getTextContent().trim()), keys);
    }

    /** Conditions of directory buckets, and versions: never ignored (the delete would be unconditional). */
    private static void refuseUnimplemented(Element object) {
        for (String name : List.of("LastModifiedTime", "Size")) {
            if (!XmlRequests.children(object, name).isEmpty()) {
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "<" + name + "> in a DeleteObjects <Object> is "
                        + "not implemented by this node; nothing was deleted.");
            }
        }
        List<Element> version = XmlRequests.children(object, "VersionId");
        if (!version.isEmpty() && !version.get(0).getTextContent().trim().equals("null")) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid version id specified: this node keeps no "
                    + "object versions (every version id is null); nothing was deleted.");
        }
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
