package io.promptcache.storage.s3;

import java.io.IOException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectHeaders;
import io.promptcache.storage.store.ObjectMeta;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.MultiMap;
import io.vertx.ext.web.RoutingContext;

/**
 * CopyObject and UploadPartCopy ({@code x-amz-copy-source}). A copy shares the source's body files instead of
 * copying bytes: it costs no capacity, and the source may be deleted afterwards without touching the copy.
 */
final class CopyHandlers {

    static final String COPY_SOURCE = "x-amz-copy-source";
    private static final String COPY_SOURCE_RANGE = "x-amz-copy-source-range";
    private static final String METADATA_DIRECTIVE = "x-amz-metadata-directive";
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d{1,19})-(\\d{1,19})");

    private final ObjectStore store;

    CopyHandlers(ObjectStore store) {
        this.store = store;
    }

    void copyObject(RoutingContext ctx, S3Path path) {
        MultiMap headers = ctx.request().headers();
        refuseBody(headers);
        S3Path source = source(headers.get(COPY_SOURCE));
        boolean replace = replaceMetadata(headers.get(METADATA_DIRECTIVE));
        if (!replace && source.equals(path)) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "This copy request is illegal because it is trying to"
                    + " copy an object to itself without changing the object's metadata, storage class, website"
                    + " redirect location or encryption attributes.");
        }
        ObjectHeaders replaced = replace ? S3Headers.objectHeaders(headers) : null;
        ObjectMeta sourceMeta = store.head(source.bucket(), source.key());
        Preconditions.checkCopySource(headers, sourceMeta);
        ObjectMeta copy = store.copy(sourceMeta, path.bucket(), path.key(), replaced,
                Preconditions.writeCondition(headers));
        S3Xml.send(ctx, S3Xml.copyResult("CopyObjectResult", copy.lastModified(), copy.etag()));
    }

    void uploadPartCopy(RoutingContext ctx, S3Path path) throws IOException {
        MultiMap headers = ctx.request().headers();
        refuseBody(headers);
        S3Path source = source(headers.get(COPY_SOURCE));
        int partNumber = MultipartHandlers.partNumber(ctx.request().getParam("partNumber"));
        ObjectMeta sourceMeta = store.head(source.bucket(), source.key());
        Preconditions.checkCopySource(headers, sourceMeta);
        long first = 0;
        long count = sourceMeta.size();
        String range = headers.get(COPY_SOURCE_RANGE);
        if (range != null) {
            Matcher m = RANGE.matcher(range.trim());
            if (!m.matches()) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "The x-amz-copy-source-range value must be of"
                        + " the form bytes=first-last where first and last are the zero-based offsets of the first"
                        + " and last bytes to copy: " + range);
            }
            first = Long.parseLong(m.group(1));
            long last = Long.parseLong(m.group(2));
            if (first > last) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Range specified is not valid for source object"
                        + " of size: " + sourceMeta.size());
            }
            if (last >= sourceMeta.size()) {
                // a range outside the source: S3's InvalidRange (416), not a malformed header
                throw new S3Exception(S3ErrorCode.INVALID_RANGE, "Range specified is not valid for source object of"
                        + " size: " + sourceMeta.size());
            }
            count = last - first + 1;
        }
        ObjectMeta part = store.multipart().copyPart(path.bucket(), path.key(), MultipartHandlers.uploadId(ctx),
                partNumber, sourceMeta, first, count);
        store.used(source.bucket(), source.key(), sourceMeta, first, count);
        S3Xml.send(ctx, S3Xml.copyResult("CopyPartResult", part.lastModified(), part.etag()));
    }

    /**
     * The source's bucket and key: {@code [/]bucket/key}, percent-encoded, optionally {@code ?versionId=null} (the
     * node keeps no versions, so any other version id names nothing).
     */
    static S3Path source(String header) {
        String value = header.trim();
        int query = value.indexOf('?');
        if (query >= 0) {
            String version = value.substring(query + 1);
            if (!version.equals("versionId=null")) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Invalid version id specified in "
                        + COPY_SOURCE + ": this node keeps no object versions (" + version + ").");
            }
            value = value.substring(0, query);
        }
        S3Path source = S3Path.of(value.startsWith("/") ? value : "/" + value);
        if (source.bucket() == null || source.key() == null) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Copy Source must mention the source bucket and key:"
                    + " sourcebucket/sourcekey, got " + header);
        }
        return source;
    }

    private static boolean replaceMetadata(String directive) {
        if (directive == null || directive.equalsIgnoreCase("COPY")) {
            return false;
        }
        if (directive.toUpperCase(Locale.ROOT).equals("REPLACE")) {
            return true;
        }
        throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Unknown metadata directive: " + directive
                + " (COPY or REPLACE).");
    }

    /** A copy takes its bytes from the source; a request body would be silently lost, so it is refused. */
    private static void refuseBody(MultiMap headers) {
        String length = headers.get("Content-Length");
        if ((length != null && !length.trim().equals("0")) || headers.contains("Transfer-Encoding")) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "A copy request (" + COPY_SOURCE
                    + ") must not carry a body.");
        }
    }
}
