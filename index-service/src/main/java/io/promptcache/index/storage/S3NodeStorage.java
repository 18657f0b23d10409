package io.promptcache.index.storage;

import java.io.InputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.secret.StorageKey;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * {@link NodeStorage} through the AWS SDK: the one {@link S3Client} quarkus-amazon-s3 configures (its HTTP client,
 * path-style, {@code quarkus.s3.*} tuning), pointed at a node per request by a request-level plugin that overrides
 * the endpoint (node endpoints come from heartbeats, not configuration) and sets this service's credentials. With
 * storage credentials configured, requests are SigV4-signed and the URLs handed to engines are presigned; without,
 * requests are anonymous and URLs plain. Every call's {@link SdkException} is turned into a
 * {@link StorageCallException} in one place ({@link #call}).
 */
@ApplicationScoped
public class S3NodeStorage implements NodeStorage {

    private static final ExecutionInterceptor NO_EXPECT_CONTINUE = new ExecutionInterceptor() {

        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            return context.httpRequest().toBuilder().removeHeader("Expect").build();
        }
    };

    private final S3Client client;
    private final AwsCredentialsProvider credentials;
    private final boolean signed;
    private final Region region;
    private final Duration presignExpiry;
    private final String bucket;
    private final Map<String, AwsRequestOverrideConfiguration> targets = new ConcurrentHashMap<>();
    private final Map<String, AwsRequestOverrideConfiguration> onceTargets = new ConcurrentHashMap<>();
    private final Map<String, S3Presigner> presigners = new ConcurrentHashMap<>();
    private final Set<String> bucketsReady = ConcurrentHashMap.newKeySet();

    S3NodeStorage(S3Client client, IndexConfig config) {
        this.client = client;
        IndexConfig.Storage storage = config.storage();
        Optional<Supplier<StorageKey>> key = StorageKey.of("promptcache.index.storage.", storage.accessKeyId(),
                storage.secretAccessKey(), storage.credentialsFile(), storage.reloadInterval());
        this.signed = key.isPresent();
        this.credentials = key.<AwsCredentialsProvider> map(k -> () -> AwsBasicCredentials.create(
                k.get().accessKeyId(), k.get().secretAccessKey())).orElseGet(AnonymousCredentialsProvider::create);
        this.region = Region.of(storage.region());
        this.presignExpiry = storage.presignExpiry();
        this.bucket = config.store().bucket();
    }

    @Override
    public String bucket() {
        return bucket;
    }

    @Override
    public void prepare(NodeStatus node) {
        if (bucketsReady.contains(node.getEndpoint())) {
            return;
        }
        try {
            call(node, "find bucket " + bucket, () -> client.headBucket(b -> b.bucket(bucket)
                    .overrideConfiguration(at(node))));
        } catch (StorageCallException e) {
            if (e.kind() != StorageCallException.Kind.NOT_FOUND) {
                throw e;
            }
            try {
                call(node, "create bucket " + bucket, () -> client.createBucket(b -> b.bucket(bucket)
                        .overrideConfiguration(at(node))));
            } catch (StorageCallException created) {
                if (!(created.getCause() instanceof S3Exception s3
                        && "BucketAlreadyOwnedByYou".equals(s3.awsErrorDetails().errorCode()))) {
                    throw created;
                }
            }
        }
        bucketsReady.add(node.getEndpoint());
    }

    @Override
    public void put(NodeStatus node, String key, InputStream body, long bytes, boolean pinned) {
        prepare(node);
        call(node, "take the PUT", () -> client.putObject(b -> b.bucket(bucket).key(key).contentLength(bytes)
                .contentType("application/octet-stream").metadata(markers(pinned)).overrideConfiguration(once(node)),
                RequestBody.fromInputStream(body, bytes)));
    }

    @Override
    public long size(NodeStatus node, String bucket, String key) {
        return call(node, "answer the HEAD", () -> client.headObject(b -> b.bucket(bucket).key(key)
                .overrideConfiguration(at(node)))).contentLength();
    }

    @Override
    public Body get(NodeStatus node, String bucket, String key, String range) {
        ResponseInputStream<GetObjectResponse> in = call(node, "answer the GET", () -> client.getObject(b -> b
                .bucket(bucket).key(key).range(range).overrideConfiguration(at(node))));
        GetObjectResponse meta = in.response();
        return new Body(in, meta.contentLength(), meta.contentRange());
    }

    @Override
    public String createUpload(NodeStatus node, String key, boolean pinned) {
        return call(node, "create the upload", () -> client.createMultipartUpload(b -> b.bucket(bucket).key(key)
                .contentType("application/octet-stream").metadata(markers(pinned)).overrideConfiguration(at(node))))
                .uploadId();
    }

    @Override
    public void pin(NodeStatus node, String key) {
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
                .sourceKey(sourceKey).destinationBucket(bucket).destinationKey(key).uploadId(uploadId)
                .partNumber(part).copySourceRange("bytes=0-" + (bytes - 1)).overrideConfiguration(at(node))))
                .copyPartResult().eTag();
    }

    @Override
    public String uploadPart(NodeStatus node, String key, String uploadId, int part, InputStream body, long bytes) {
        return call(node, "take the new bytes", () -> client.uploadPart(b -> b.bucket(bucket).key(key)
                .uploadId(uploadId).partNumber(part).contentLength(bytes).overrideConfiguration(once(node)),
                RequestBody.fromInputStream(body, bytes))).eTag();
    }

    @Override
    public List<Part> parts(NodeStatus node, String key, String uploadId) {
        return call(node, "list the parts", () -> client.listParts(b -> b.bucket(bucket).key(key)
                .uploadId(uploadId).overrideConfiguration(at(node)))).parts().stream()
                .map(p -> new Part(p.partNumber(), p.size(), p.eTag())).toList();
    }

    @Override
    public void complete(NodeStatus node, String key, String uploadId, List<Part> parts) {
        List<CompletedPart> completed = parts.stream()
                .map(p -> CompletedPart.builder().partNumber(p.number()).eTag(p.etag()).build()).toList();
        call(node, "complete the object", () -> client.completeMultipartUpload(b -> b.bucket(bucket).key(key)
                .uploadId(uploadId).multipartUpload(m -> m.parts(completed)).overrideConfiguration(at(node))));
    }

    @Override
    public void abort(NodeStatus node, String key, String uploadId) {
        call(node, "abort the upload", () -> client.abortMultipartUpload(b -> b.bucket(bucket).key(key)
                .uploadId(uploadId).overrideConfiguration(at(node))));
    }

    /** Runs one call; an {@link SdkException} becomes a {@link StorageCallException} saying what the node did. */
    private static <T> T call(NodeStatus node, String what, Supplier<T> request) {
        try {
            return request.get();
        } catch (S3Exception e) {
            StorageCallException.Kind kind = switch (e.statusCode()) {
                case 404 -> StorageCallException.Kind.NOT_FOUND;
                case 416 -> StorageCallException.Kind.INVALID_RANGE;
                default -> StorageCallException.Kind.REFUSED;
            };
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            throw new StorageCallException(kind, "storage node " + node.getNodeId() + " did not " + what + ": it "
                    + "answered " + e.statusCode() + (code == null ? "" : " " + code), e);
        } catch (SdkException e) {
            throw new StorageCallException(StorageCallException.Kind.UNREACHABLE, "storage node " + node.getNodeId()
                    + " did not " + what + ": " + unreachable(e), e);
        }
    }

    /** Why a node gave no answer, in plain words. */
    private static String unreachable(SdkException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ApiCallTimeoutException || t instanceof ApiCallAttemptTimeoutException
                    || t instanceof SocketTimeoutException) {
                return "it did not answer in time";
            }
            if (t instanceof ConnectException) {
                return "it refused the connection";
            }
        }
        return "the connection to it failed";
    }

    /** The request override that sends a request to {@code node}. */
    private AwsRequestOverrideConfiguration at(NodeStatus node) {
        return targets.computeIfAbsent(node.getEndpoint(), e -> target(e, false));
    }

    /**
     * As {@link #at}, with no retry: for a body streamed through from the engine, which cannot be read twice. A
     * retry of such a PUT would fail on the spent stream with an {@link IllegalStateException} instead of
     * reporting what made the first attempt fail. Sent without {@code Expect: 100-continue}: with it, the url
     * client (the JDK's HttpURLConnection) left some PUTs to a busy node waiting for the response head until its
     * read timeout (seen by the stack's bench and gc-processor's benchmark).
     */
    private AwsRequestOverrideConfiguration once(NodeStatus node) {
        return onceTargets.computeIfAbsent(node.getEndpoint(), e -> target(e, true));
    }

    private AwsRequestOverrideConfiguration target(String endpoint, boolean once) {
        URI uri = URI.create(endpoint);
        SdkPlugin plugin = config -> {
            S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) config;
            s3.endpointOverride(uri).region(region).credentialsProvider(credentials);
            if (once) {
                s3.overrideConfiguration(s3.overrideConfiguration().toBuilder()
                        .retryStrategy(AwsRetryStrategy.doNotRetry()).addExecutionInterceptor(NO_EXPECT_CONTINUE)
                        .build());
            }
        };
        return AwsRequestOverrideConfiguration.builder().addPlugin(plugin).build();
    }

    @Override
    public boolean signed() {
        return signed;
    }

    @Override
    public String getUrl(NodeStatus node, String bucket, String key) {
        if (!signed) {
            return plainUrl(node.getEndpoint(), bucket, key);
        }
        return presigner(node).presignGetObject(r -> r.signatureDuration(presignExpiry)
                .getObjectRequest(GetObjectRequest.builder().bucket(bucket).key(key).build())).url().toString();
    }

    @Override
    public String putUrl(NodeStatus node, String key, long bytes, Duration expiry) {
        if (!signed) {
            return plainUrl(node.getEndpoint(), bucket, key);
        }
        return presigner(node).presignPutObject(r -> r.signatureDuration(expiry).putObjectRequest(
                PutObjectRequest.builder().bucket(bucket).key(key).contentLength(bytes).build())).url().toString();
    }

    @Override
    public String uploadPartUrl(NodeStatus node, String key, String uploadId, int part, long bytes,
            Duration expiry) {
        if (!signed) {
            return plainUrl(node.getEndpoint(), bucket, key) + "?partNumber=" + part + "&uploadId=" + uploadId;
        }
        return presigner(node).presignUploadPart(r -> r.signatureDuration(expiry).uploadPartRequest(
                UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId).partNumber(part)
                        .contentLength(bytes).build()))
                .url().toString();
    }

    private S3Presigner presigner(NodeStatus node) {
        return presigners.computeIfAbsent(node.getEndpoint(), e -> S3Presigner.builder()
                .endpointOverride(URI.create(e)).region(region).credentialsProvider(credentials)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build()).build());
    }

    static String plainUrl(String endpoint, String bucket, String key) {
        StringBuilder url = new StringBuilder(endpoint.endsWith("/")
                ? endpoint.substring(0, endpoint.length() - 1)
                : endpoint).append('/').append(bucket);
        for (String segment : key.split("/", -1)) {
            url.append('/').append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
        }
        return url.toString();
    }

    @PreDestroy
    void close() {
        presigners.values().forEach(S3Presigner::close);
    }
}
