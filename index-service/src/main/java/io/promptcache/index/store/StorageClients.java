package io.promptcache.index.store;

import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import io.promptcache.index.config.IndexConfig;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * The AWS SDK client for the storage nodes: the one {@link S3Client} quarkus-amazon-s3 configures (its HTTP client,
 * path-style, {@code quarkus.s3.*} tuning), pointed at a node per request by a request-level plugin that overrides
 * the endpoint (node endpoints come from heartbeats, not configuration) and sets this service's credentials. With
 * storage credentials configured, requests are SigV4-signed and the URLs handed to engines are presigned; without,
 * requests are anonymous and URLs plain.
 */
@ApplicationScoped
public class StorageClients {

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
    private final Map<String, AwsRequestOverrideConfiguration> targets = new ConcurrentHashMap<>();
    private final Map<String, AwsRequestOverrideConfiguration> onceTargets = new ConcurrentHashMap<>();
    private final Map<String, S3Presigner> presigners = new ConcurrentHashMap<>();

    StorageClients(S3Client client, IndexConfig config) {
        this.client = client;
        IndexConfig.Storage storage = config.storage();
        this.signed = storage.accessKeyId().isPresent();
        if (signed != storage.secretAccessKey().isPresent()) {
            throw new IllegalArgumentException("set both promptcache.index.storage.access-key-id and "
                    + "promptcache.index.storage.secret-access-key, or neither");
        }
        this.credentials = signed
                ? StaticCredentialsProvider.create(AwsBasicCredentials.create(storage.accessKeyId().get(),
                        storage.secretAccessKey().get()))
                : AnonymousCredentialsProvider.create();
        this.region = Region.of(storage.region());
        this.presignExpiry = storage.presignExpiry();
    }

    /** The S3 client; every request names its node with {@link #at(String)}. */
    public S3Client client() {
        return client;
    }

    /** The request override that sends a request to the node at {@code endpoint} (e.g. {@code http://10.0.0.5:9000}). */
    public AwsRequestOverrideConfiguration at(String endpoint) {
        return targets.computeIfAbsent(endpoint, e -> target(e, false));
    }

    /**
     * As {@link #at(String)}, with no retry: for a body streamed through from the engine, which cannot be read twice.
     * A retry of such a PUT would fail on the spent stream with an {@link IllegalStateException} instead of
     * reporting what made the first attempt fail. Sent without {@code Expect: 100-continue}: with it, the url
     * client (the JDK's HttpURLConnection) left some PUTs to a busy node waiting for the response head until its
     * read timeout (seen by the stack's bench and gc-processor's benchmark).
     */
    public AwsRequestOverrideConfiguration once(String endpoint) {
        return onceTargets.computeIfAbsent(endpoint, e -> target(e, true));
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

    /** Whether requests are signed (and URLs presigned). */
    public boolean signed() {
        return signed;
    }

    /** A GET URL of the object for an engine: presigned when the nodes use SigV4, else plain. */
    public String getUrl(String endpoint, String bucket, String key) {
        if (!signed) {
            return plainUrl(endpoint, bucket, key);
        }
        return presigner(endpoint).presignGetObject(r -> r.signatureDuration(presignExpiry)
                .getObjectRequest(GetObjectRequest.builder().bucket(bucket).key(key).build())).url().toString();
    }

    /** A PUT URL for {@code contentLength} bytes, valid for {@code expiry}: presigned when signed, else plain. */
    public String putUrl(String endpoint, String bucket, String key, long contentLength, Duration expiry) {
        if (!signed) {
            return plainUrl(endpoint, bucket, key);
        }
        return presigner(endpoint).presignPutObject(r -> r.signatureDuration(expiry).putObjectRequest(
                PutObjectRequest.builder().bucket(bucket).key(key).contentLength(contentLength).build())).url()
                .toString();
    }

    /** A PUT URL for part {@code part} of a multipart upload: presigned when signed, else plain. */
    public String uploadPartUrl(String endpoint, String bucket, String key, String uploadId, int part,
            long contentLength, Duration expiry) {
        if (!signed) {
            return plainUrl(endpoint, bucket, key) + "?partNumber=" + part + "&uploadId=" + uploadId;
        }
        return presigner(endpoint).presignUploadPart(r -> r.signatureDuration(expiry).uploadPartRequest(
                UploadPartRequest.builder().bucket(bucket).key(key).uploadId(uploadId).partNumber(part)
                        .contentLength(contentLength).build()))
                .url().toString();
    }

    private S3Presigner presigner(String endpoint) {
        return presigners.computeIfAbsent(endpoint, e -> S3Presigner.builder().endpointOverride(URI.create(e))
                .region(region).credentialsProvider(credentials)
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
