package io.promptcache.storage.s3;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

import io.vertx.ext.web.RoutingContext;

/** The XML documents of the S3 API, written directly (small, fixed shapes). */
final class S3Xml {

    static final String CONTENT_TYPE = "application/xml";
    static final String HEADER = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    static final String NS = " xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"";
    /** The owner of every bucket and object: the node's credentials, one identity. */
    static final String OWNER = "promptcache";
    private static final DateTimeFormatter ISO = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    private S3Xml() {
    }

    static String error(String code, String message, String resource, String requestId) {
        return HEADER + "<Error><Code>" + escape(code) + "</Code><Message>" + escape(message) + "</Message>"
                + "<Resource>" + escape(resource) + "</Resource><RequestId>" + requestId + "</RequestId></Error>";
    }

    /** CopyObjectResult or CopyPartResult ({@code root}). */
    static String copyResult(String root, long lastModified, String etag) {
        return HEADER + "<" + root + NS + "><LastModified>" + iso(lastModified) + "</LastModified><ETag>"
                + escape(S3Headers.quotedEtag(etag)) + "</ETag></" + root + ">";
    }

    /** Answers 200 with an XML document. */
    static void send(RoutingContext ctx, String document) {
        ctx.response().putHeader("Content-Type", CONTENT_TYPE).end(document);
    }

    static String iso(long millis) {
        return ISO.format(Instant.ofEpochMilli(millis));
    }

    /** Escapes text for XML 1.0; characters XML cannot carry become U+FFFD. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                case '\r' -> out.append("&#13;");
                case '\n' -> out.append("&#10;");
                case '\t' -> out.append("&#9;");
                default -> out.append(c < 0x20 ? '\uFFFD' : c);
            }
        }
        return out.toString();
    }
}
