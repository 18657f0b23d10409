package io.promptcache.gc.storage;

import java.io.IOException;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

import io.promptcache.gc.config.GcConfig;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.NodeMarkers;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.MetadataDirective;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * {@link NodeStorage} on S3: marks and deletes on promptcache's own nodes without the SDK ({@link OwnNodeCalls}), the
 * rest through the AWS SDK: the {@link S3Client} quarkus-amazon-s3 configures ({@code quarkus.s3.*}), sent to a node
 * per request by a request-level plugin (node endpoints come from heartbeats). Calls to own nodes are SigV4-signed
 * when {@code promptcache.gc.storage.access-key-id} is set; an external S3 endpoint's calls are signed with its own
 * key or the AWS SDK's default chain, in its region.
 */
@ApplicationScoped
public class S3NodeStorage implements NodeStorage {

    private final S3Client client;
    /** How calls to promptcache's own nodes are signed. */
    private final Signer nodes;
    /** How calls to each external endpoint are signed, by its URL (event-schema: one id per URL). */
    private final Map<String, Signer> externals = new HashMap<>();
    private final Duration timeout;
    /** Marks and deletes on promptcache's own nodes. */
    private final OwnNodeCalls own;
    private final Map<String, AwsRequestOverrideConfiguration> targets = new ConcurrentHashMap<>();
    /** The keys this service signs with, closed with it (a key read from a file is re-read until then). */
    private final List<StorageKey.Source> keys = new ArrayList<>();

    S3NodeStorage(S3Client client, GcConfig config) {
        this.client = client;
        GcConfig.Storage storage = config.storage();
        Optional<StorageKey.Source> key = StorageKey.of(GcConfig.STORAGE, storage.accessKeyId(),
                storage.secretAccessKey(), storage.credentialsFile(), storage.reloadInterval());
        key.ifPresent(keys::add);
        this.nodes = new Signer(key.map(S3NodeStorage::provider).orElseGet(AnonymousCredentialsProvider::create),
                Region.of(storage.region()), true);
        ExternalNodes.statuses(GcConfig.EXTERNAL, storage.external(), storage.bucket()).forEach((id, status) -> {
            ExternalNodes.Endpoint endpoint = storage.external().get(id);
            Optional<StorageKey.Source> own = StorageKey.of(GcConfig.EXTERNAL + id + ".", endpoint.accessKeyId(),
                    endpoint.secretAccessKey(), endpoint.credentialsFile(), storage.reloadInterval());
            own.ifPresent(keys::add);
            externals.put(status.getEndpoint(), new Signer(own.map(S3NodeStorage::provider)
                    .orElseGet(() -> DefaultCredentialsProvider.builder().build()),
                    Region.of(status.getExternal().getRegion()), ExternalNodes.pathStyle(status)));
        });
        this.timeout = storage.callTimeout();
        Config settings = ConfigProvider.getConfig();
        OwnNodeHttp.Transport transport = OwnNodeHttp.Transport.of(
                name -> settings.getOptionalValue(name, String.class),
                name -> settings.getOptionalValue(name, Duration.class));
        // no longer than a call through the SDK may take
        transport = new OwnNodeHttp.Transport(transport.tls(), min(transport.connectTimeout(), timeout),
                min(transport.readTimeout(), timeout), min(transport.writeStall(), timeout));
        this.own = new OwnNodeCalls(new OwnNodeHttp(key.map(k -> new SigningDay(k, storage.region(),
                Clock.systemUTC())), transport));
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** One of promptcache's own nodes, at an endpoint without a path (where a request's path is bucket/key). */
    private boolean ownNode(String endpoint) {
        return !externals.containsKey(endpoint) && OwnNodeHttp.pathless(endpoint);
    }

    @PreDestroy
    void close() {
        keys.forEach(StorageKey.Source::close);
    }

    /** A fixed or rotating key as the SDK's credentials. */
    private static AwsCredentialsProvider provider(Supplier<StorageKey> key) {
        return () -> AwsBasicCredentials.create(key.get().accessKeyId(), key.get().secretAccessKey());
    }

    /** How calls to one endpoint are signed and addressed. */
    private record Signer(AwsCredentialsProvider credentials, Region region, boolean pathStyle) {
    }

    /** Endpoints resolved as the client would, virtual-hosted style (the client itself is path-style). */
    private static final S3EndpointProvider VIRTUAL_HOSTED = params -> S3EndpointProvider.defaultProvider()
            .resolveEndpoint(params.toBuilder().forcePathStyle(false).build());

    @Override
    public void delete(String endpoint, String bucket, String key) {
        if (ownNode(endpoint)) {
            try {
                own.delete(endpoint, bucket, key);
            } catch (IOException e) {
                throw new StorageCallException("DELETE " + bucket + "/" + key + " on " + endpoint + ": "
                        + e.getMessage(), e);
            }
            return;
        }
        try {
            client.deleteObject(b -> b.bucket(bucket).key(key).overrideConfiguration(at(endpoint)));
        } catch (NoSuchBucketException e) {
            // nothing was ever stored there: the object is gone either way
        } catch (SdkException e) {
            throw new StorageCallException("DELETE " + bucket + "/" + key + " on " + endpoint + ": " + e.getMessage(),
                    e);
        }
    }

    @Override
    public void markReclaimable(String endpoint, String bucket, String key, long deleteAfterMs) {
        mark(endpoint, bucket, key, NodeMarkers.RECLAIMABLE_AFTER, deleteAfterMs, "reclaimable");
    }

    @Override
    public boolean markCandidate(String endpoint, String bucket, String key, long lastUseMs) {
        return mark(endpoint, bucket, key, NodeMarkers.EVICTION_CANDIDATE, lastUseMs, "an eviction candidate");
    }

    /** A CopyObject of the object onto itself that replaces its metadata with {@code marker: value}. */
    private boolean mark(String endpoint, String bucket, String key, String marker, long value, String what) {
        if (ownNode(endpoint)) {
            try {
                return own.mark(endpoint, bucket, key, marker, value);
            } catch (IOException e) {
                throw new StorageCallException("mark " + bucket + "/" + key + " " + what + " on " + endpoint + ": "
                        + e.getMessage(), e);
            }
        }
        try {
            client.copyObject(b -> b.sourceBucket(bucket).sourceKey(key).destinationBucket(bucket).destinationKey(key)
                    .metadataDirective(MetadataDirective.REPLACE).contentType("application/octet-stream")
                    .metadata(Map.of(marker, Long.toString(value))).overrideConfiguration(at(endpoint)));
            return true;
        } catch (NoSuchKeyException | NoSuchBucketException e) {
            return false; // gone already
        } catch (SdkException e) {
            throw new StorageCallException("mark " + bucket + "/" + key + " " + what + " on " + endpoint + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public Listing list(String endpoint, String bucket, String continuation, int pageSize) {
        try {
            ListObjectsV2Response page = client.listObjectsV2(b -> b.bucket(bucket).maxKeys(pageSize)
                    .continuationToken(continuation).overrideConfiguration(at(endpoint)));
            return new Listing(page.contents().stream()
                    .map(o -> new Listed(o.key(), o.size(), o.lastModified().toEpochMilli())).toList(),
                    Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null);
        } catch (NoSuchBucketException e) {
            return new Listing(List.of(), null);
        } catch (SdkException e) {
            throw new StorageCallException("LIST " + bucket + " on " + endpoint + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Set<String> claim(String endpoint, String bucket, String prefix, String cluster) {
        try {
            client.putObject(b -> b.bucket(bucket).key(prefix + cluster).overrideConfiguration(at(endpoint)),
                    RequestBody.empty());
            Set<String> claims = new TreeSet<>();
            String continuation = null;
            do {
                String from = continuation;
                ListObjectsV2Response page = client.listObjectsV2(b -> b.bucket(bucket).prefix(prefix)
                        .continuationToken(from).overrideConfiguration(at(endpoint)));
                page.contents().forEach(o -> claims.add(o.key().substring(prefix.length())));
                continuation = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
            } while (continuation != null);
            return claims;
        } catch (NoSuchBucketException e) {
            return Set.of();
        } catch (SdkException e) {
            throw new StorageCallException("claim " + bucket + " on " + endpoint + ": " + e.getMessage(), e);
        }
    }

    private AwsRequestOverrideConfiguration at(String endpoint) {
        return targets.computeIfAbsent(endpoint, e -> {
            URI uri = URI.create(e);
            Signer signer = externals.getOrDefault(e, nodes);
            SdkPlugin plugin = config -> {
                S3ServiceClientConfiguration.Builder s3 = ((S3ServiceClientConfiguration.Builder) config)
                        .endpointOverride(uri).region(signer.region()).credentialsProvider(signer.credentials());
                if (!signer.pathStyle()) {
                    s3.endpointProvider(VIRTUAL_HOSTED);
                }
            };
            return AwsRequestOverrideConfiguration.builder().addPlugin(plugin).apiCallTimeout(timeout).build();
        });
    }
}
