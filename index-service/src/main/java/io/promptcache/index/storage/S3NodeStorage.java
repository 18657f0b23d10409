package io.promptcache.index.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.ConfigProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.node.PrefixedPut;
import io.promptcache.schema.proto.NodeStatus;

import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * {@link NodeStorage} through the AWS SDK: the one {@link S3Client} quarkus-amazon-s3 configures (its HTTP client,
 * path-style, {@code quarkus.s3.*} tuning), pointed at a node per request by a request-level plugin that overrides
 * the endpoint (node endpoints come from heartbeats, or the configuration of external S3 endpoints) and sets the
 * credentials and region for it. With storage credentials configured, requests to promptcache's nodes are
 * SigV4-signed and the URLs handed to engines are presigned; without, requests are anonymous and URLs plain. An
 * external endpoint is always signed: with its own key, or the AWS SDK's default chain (environment, profile). The
 * PUTs to promptcache's own nodes, a store's hot call, skip the SDK ({@link OwnNodePuts}). Every call's
 * {@link SdkException}, and every failure of an own PUT, is turned into a {@link StorageCallException} in one place
 * ({@link #refused}, {@link #failed}).
 */
@ApplicationScoped
public class S3NodeStorage implements NodeStorage {

    private static final Logger LOG = LoggerFactory.getLogger(S3NodeStorage.class);

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    private final S3Client client;
    private final NodeTargets targets;
    private final Duration presignExpiry;
    private final String bucket;
    private final Set<String> bucketsReady = ConcurrentHashMap.newKeySet();

    S3NodeStorage(S3Client client, IndexConfig config) {
        this.client = client;
        this.targets = new NodeTargets(config.storage(), OwnNodeHttp.Transport.of(
                name -> ConfigProvider.getConfig().getOptionalValue(name, String.class),
                name -> ConfigProvider.getConfig().getOptionalValue(name, Duration.class)));
        this.presignExpiry = config.storage().presignExpiry();
        this.bucket = config.store().bucket();
    }

    @Override
    public String bucket(NodeStatus node) {
        return ExternalNodes.bucketOf(node, bucket);
    }

    @Override
    public void probe(NodeStatus node) {
        String target = node.getExternal().getBucket();
        AwsRequestOverrideConfiguration probe = targets.at(node).toBuilder().apiCallTimeout(PROBE_TIMEOUT).build();
        try {
            call(node, "answer a HEAD of bucket " + target, () -> client.headBucket(b -> b.bucket(target)
                    .overrideConfiguration(probe)));
        } catch (StorageCallException e) {
            if (e.kind() != StorageCallException.Kind.NOT_FOUND) {
                throw e;
            }
            if (!node.getExternal().getCreateBucket()) {
                throw new StorageCallException(StorageCallException.Kind.NOT_FOUND, "the bucket " + target
                        + " does not exist on " + node.getEndpoint() + " (external endpoint " + node.getNodeId()
                        + "): create it, or set " + IndexConfig.EXTERNAL + node.getNodeId() + ".create-bucket=true",
                        e);
            }
            createBucket(node, target, probe);
        }
    }

    @Override
    public void prepare(NodeStatus node) {
        if (node.hasExternal() || bucketsReady.contains(node.getEndpoint())) {
            return;
        }
        try {
            call(node, "find bucket " + bucket, () -> client.headBucket(b -> b.bucket(bucket)
                    .overrideConfiguration(at(node))));
        } catch (StorageCallException e) {
            if (e.kind() != StorageCallException.Kind.NOT_FOUND) {
                throw e;
            }
            createBucket(node, bucket, at(node));
        }
        bucketsReady.add(node.getEndpoint());
    }

    private void createBucket(NodeStatus node, String name, AwsRequestOverrideConfiguration target) {
        try {
            call(node, "create bucket " + name, () -> client.createBucket(b -> b.bucket(name)
                    .overrideConfiguration(target)));
        } catch (StorageCallException created) {
            if (!(created.getCause() instanceof S3Exception s3 && s3.awsErrorDetails() != null
                    && "BucketAlreadyOwnedByYou".equals(s3.awsErrorDetails().errorCode()))) {
                throw created;
            }
        }
    }

    @Override
    public void put(NodeStatus node, String key, InputStream body, long bytes, boolean pinned) {
        prepare(node);
        putOnce(node, key, pinned, Map.of(), body, bytes, bytes, "PUT");
    }

    @Override
    public void putPrefixed(NodeStatus node, String key, boolean pinned, String sourceBucket, String sourceKey,
            long prefixBytes, InputStream body, long bytes) {
        prepare(node);
        String prefix = Long.toString(prefixBytes);
        AnswerHeaders answer = putOnce(node, key, pinned, Map.of(PrefixedPut.FROM, path(sourceBucket, sourceKey),
                PrefixedPut.BYTES, prefix), body, bytes, prefixBytes + bytes, "prefixed PUT");
        if (answer != null && !answer.get(PrefixedPut.BYTES).filter(prefix::equals).isPresent()) {
            // a server that ignored the headers stored the new bytes alone: never leave that under the key
            deleteQuietly(node, key);
            throw new StorageCallException(StorageCallException.Kind.REFUSED, "storage node " + node.getNodeId()
                    + " did not take the continuation's prefix (no " + PrefixedPut.BYTES + " in its answer: a node "
                    + "that predates prefixed PUTs?); the object it stored was deleted", null);
        }
    }

    /** The headers of a node's answer, by lower-case name. */
    @FunctionalInterface
    private interface AnswerHeaders {

        Optional<String> get(String name);
    }

    /**
     * One PutObject of {@code bytes} streamed from {@code body} with these extra headers (lower-case names), never
     * retried. Its answer's headers; or null when the connection broke after the last byte was taken and the key
     * holds an object of {@code storedBytes} (see {@link SentBody}): the write happened, only its answer was lost.
     */
    private AnswerHeaders putOnce(NodeStatus node, String key, boolean pinned, Map<String, String> headers,
            InputStream body, long bytes, long storedBytes, String what) {
        SentBody sent = new SentBody(body, bytes);
        try {
            return send(node, key, pinned, headers, sent, bytes, "take the " + what);
        } catch (StorageCallException e) {
            if (!sent.allTaken() || e.kind() != StorageCallException.Kind.UNREACHABLE
                    || storedSize(node, key) != storedBytes) {
                throw e;
            }
            LOG.debug("{} of {} to {}: the connection broke after the last byte, and the object is there whole", what,
                    key, node.getNodeId());
            return null;
        }
    }

    /** The PUT itself: to promptcache's own nodes without the SDK ({@link OwnNodePuts}), to the others with it. */
    private AnswerHeaders send(NodeStatus node, String key, boolean pinned, Map<String, String> headers,
            InputStream body, long bytes, String what) {
        Optional<OwnNodePuts> own = targets.ownPuts(node);
        if (own.isPresent()) {
            Map<String, String> all = new HashMap<>(headers);
            markers(pinned).forEach((name, value) -> all.put("x-amz-meta-" + name, value));
            OwnNodeHttp.Answer answer;
            try {
                answer = own.get().put(node.getEndpoint(), bucket(node), key, all, body, bytes);
            } catch (IOException e) {
                throw failed(node, what, e);
            }
            if (!answer.ok()) {
                throw refused(node, what, answer.status(), answer.errorCode(), null);
            }
            return answer::header;
        }
        AwsRequestOverrideConfiguration.Builder target = once(node).toBuilder();
        headers.forEach(target::putHeader);
        PutObjectResponse answer = call(node, what, () -> client.putObject(b -> b.bucket(bucket(node)).key(key)
                .contentLength(bytes).contentType("application/octet-stream").metadata(markers(pinned))
                .overrideConfiguration(target.build()), RequestBody.fromInputStream(body, bytes)));
        return name -> answer.sdkHttpResponse().firstMatchingHeader(name);
    }

    @Override
    public void deleteQuietly(NodeStatus node, String key) {
        try {
            call(node, "delete the object", () -> client.deleteObject(b -> b.bucket(bucket(node)).key(key)
                    .overrideConfiguration(at(node))));
        } catch (StorageCallException e) {
            LOG.warn("Could not delete {} on {}: {}", key, node.getNodeId(), e.getMessage());
        }
    }

    /** The size of a key just written, or -1 if it cannot be had (the write's own failure then stands). */
    private long storedSize(NodeStatus node, String key) {
        try {
            return size(node, bucket(node), key);
        } catch (StorageCallException e) {
            return -1;
        }
    }

    @Override
    public long size(NodeStatus node, String bucket, String key) {
        return call(node, "answer the HEAD", () -> client.headObject(b -> b.bucket(bucket).key(key)
                .overrideConfiguration(at(node)))).contentLength();
    }

    @Override
    public Body get(NodeStatus node, String bucket, String key, String range) {
        ResponseInputStream<GetObjectResponse> in = call(node, "answer the GET", () -> client.getObject(b -> b
                .bucket(bucket).key(key).range(range).overrideConfiguration(targets.at(node))));
        GetObjectResponse meta = in.response();
        return new Body(in, meta.contentLength(), meta.contentRange());
    }

    @Override
    public String createUpload(NodeStatus node, String key, boolean pinned) {
        return call(node, "create the upload", () -> client.createMultipartUpload(b -> b.bucket(bucket(node))
                .key(key)
                .contentType("application/octet-stream").metadata(markers(pinned)).overrideConfiguration(at(node))))
                .uploadId();
    }

    @Override
    public void pin(NodeStatus node, String key) {
        if (node.hasExternal()) {
            return; // it deletes nothing on its own; and setting metadata may copy the bytes there
        }
        call(node, "pin the object", () -> client.copyObject(b -> b.sourceBucket(bucket).sourceKey(key)
                .destinationBucket(bucket).destinationKey(key).metadataDirective(MetadataDirective.REPLACE)
                .contentType("application/octet-stream").metadata(markers(true)).overrideConfiguration(at(node))));
    }

    /** The node's markers of a new object: a pinned one is never deleted by the node on its own. */
    private static Map<String, String> markers(boolean pinned) {
        return pinned ? Map.of(NodeMarkers.PINNED, "true") : Map.of();
    }

    @Override
    public String copyPart(NodeStatus node, String key, String uploadId, int part, String sourceBucket,
            String sourceKey, long bytes) {
        return call(node, "copy the shared bytes", () -> client.uploadPartCopy(b -> b.sourceBucket(sourceBucket)
                .sourceKey(sourceKey).destinationBucket(bucket(node)).destinationKey(key).uploadId(uploadId)
                .partNumber(part).copySourceRange("bytes=0-" + (bytes - 1)).overrideConfiguration(at(node))))
                .copyPartResult().eTag();
    }

    @Override
    public String uploadPart(NodeStatus node, String key, String uploadId, int part, InputStream body, long bytes) {
        SentBody sent = new SentBody(body, bytes);
        try {
            return call(node, "take the new bytes", () -> client.uploadPart(b -> b.bucket(bucket(node)).key(key)
                    .uploadId(uploadId).partNumber(part).contentLength(bytes).overrideConfiguration(once(node)),
                    RequestBody.fromInputStream(sent, bytes))).eTag();
        } catch (StorageCallException e) {
            if (!sent.allTaken() || e.kind() != StorageCallException.Kind.UNREACHABLE) {
                throw e;
            }
            return storedPart(node, key, uploadId, part, bytes).orElseThrow(() -> e);
        }
    }

    /** The ETag of a part just uploaded if the server holds it whole (see {@link SentBody}). */
    private Optional<String> storedPart(NodeStatus node, String key, String uploadId, int part, long bytes) {
        try {
            return parts(node, key, uploadId).stream().filter(p -> p.number() == part && p.size() == bytes)
                    .map(Part::etag).findFirst();
        } catch (StorageCallException e) {
            return Optional.empty();
        }
    }

    @Override
    public List<Part> parts(NodeStatus node, String key, String uploadId) {
        return call(node, "list the parts", () -> client.listParts(b -> b.bucket(bucket(node)).key(key)
                .uploadId(uploadId).overrideConfiguration(at(node)))).parts().stream()
                .map(p -> new Part(p.partNumber(), p.size(), p.eTag())).toList();
    }

    @Override
    public void complete(NodeStatus node, String key, String uploadId, List<Part> parts) {
        List<CompletedPart> completed = parts.stream()
                .map(p -> CompletedPart.builder().partNumber(p.number()).eTag(p.etag()).build()).toList();
        call(node, "complete the object", () -> client.completeMultipartUpload(b -> b.bucket(bucket(node)).key(key)
                .uploadId(uploadId).multipartUpload(m -> m.parts(completed)).overrideConfiguration(at(node))));
    }

    @Override
    public void abort(NodeStatus node, String key, String uploadId) {
        call(node, "abort the upload", () -> client.abortMultipartUpload(b -> b.bucket(bucket(node)).key(key)
                .uploadId(uploadId).overrideConfiguration(at(node))));
    }

    /** Runs one call; an {@link SdkException} becomes a {@link StorageCallException} saying what the node did. */
    private static <T> T call(NodeStatus node, String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (S3Exception e) {
            throw refused(node, what, e.statusCode(), e.awsErrorDetails() == null
                    ? null
                    : e.awsErrorDetails().errorCode(), e);
        } catch (SdkException e) {
            throw failed(node, what, e);
        }
    }

    /** A node answered {@code status} (and the S3 error code, if any) instead of doing {@code what}. */
    private static StorageCallException refused(NodeStatus node, String what, int status, String code,
            Throwable cause) {
        StorageCallException.Kind kind = switch (status) {
            case 404 -> StorageCallException.Kind.NOT_FOUND;
            case 416 -> StorageCallException.Kind.INVALID_RANGE;
            default -> StorageCallException.Kind.REFUSED;
        };
        return new StorageCallException(kind, name(node) + " did not " + what + ": it answered " + status
                + (code == null ? "" : " " + code) + (status == 403 ? " (check its credentials)" : ""), cause);
    }

    /** A node gave no answer to {@code what}: refused or broken connection, or none in time. */
    private static StorageCallException failed(NodeStatus node, String what, Exception e) {
        return StorageCallException.noAnswer(name(node) + " did not " + what, e);
    }

    private static String name(NodeStatus node) {
        return node.hasExternal()
                ? "external S3 endpoint " + node.getNodeId() + " (" + node.getEndpoint() + ")"
                : "storage node " + node.getNodeId();
    }

    @Override
    public boolean signed(NodeStatus node) {
        return targets.signed(node);
    }

    @Override
    public String getUrl(NodeStatus node, String bucket, String key) {
        if (!signed(node)) {
            return plainUrl(node.getEndpoint(), bucket, key);
        }
        Optional<PresignedGets> own = targets.ownGets(node);
        if (own.isPresent()) {
            return own.get().url(node.getEndpoint(), bucket, key, presignExpiry);
        }
        return presigner(node).presignGetObject(r -> r.signatureDuration(presignExpiry)
                .getObjectRequest(GetObjectRequest.builder().bucket(bucket).key(key).build())).url().toString();
    }

    @Override
    public String putUrl(NodeStatus node, String key, long bytes, Duration expiry) {
        if (!signed(node)) {
            return plainUrl(node.getEndpoint(), bucket(node), key);
        }
        return presigner(node).presignPutObject(r -> r.signatureDuration(expiry).putObjectRequest(
                PutObjectRequest.builder().bucket(bucket(node)).key(key).contentLength(bytes).build())).url()
                .toString();
    }

    @Override
    public String uploadPartUrl(NodeStatus node, String key, String uploadId, int part, long bytes,
            Duration expiry) {
        if (!signed(node)) {
            return plainUrl(node.getEndpoint(), bucket(node), key) + "?partNumber=" + part + "&uploadId=" + uploadId;
        }
        return presigner(node).presignUploadPart(r -> r.signatureDuration(expiry).uploadPartRequest(
                UploadPartRequest.builder().bucket(bucket(node)).key(key).uploadId(uploadId).partNumber(part)
                        .contentLength(bytes).build()))
                .url().toString();
    }

    private S3Presigner presigner(NodeStatus node) {
        return targets.presigner(node);
    }

    static String plainUrl(String endpoint, String bucket, String key) {
        return (endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint) + '/'
                + path(bucket, key);
    }

    /** {@code bucket/key}, each segment of the key percent-encoded: a URL's path, or a copy source. */
    static String path(String bucket, String key) {
        StringBuilder path = new StringBuilder(bucket);
        for (String segment : key.split("/", -1)) {
            path.append('/').append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return path.toString();
    }

    /** The request override of a bodiless request to {@code node}, bounded ({@link NodeTargets#control}). */
    private AwsRequestOverrideConfiguration at(NodeStatus node) {
        return targets.control(node);
    }

    /** As {@link #at}, with no retry: for a body streamed from the engine ({@link NodeTargets#once}). */
    private AwsRequestOverrideConfiguration once(NodeStatus node) {
        return targets.once(node);
    }

    @PreDestroy
    void close() {
        targets.close();
    }
}
