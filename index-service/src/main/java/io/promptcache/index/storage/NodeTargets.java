package io.promptcache.index.storage;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.schema.node.ExternalNodes;
import io.promptcache.schema.node.OwnNodeHttp;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.secret.SigningDay;
import io.promptcache.schema.secret.StorageKey;

import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.endpoints.S3EndpointProvider;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * Where and how {@link S3NodeStorage}'s calls and URLs go, per node: its endpoint, credentials, region and addressing
 * style, as request-level overrides of the one S3 client and as presigners. promptcache's nodes share this service's
 * storage key (anonymous without one); an external S3 endpoint has its own key, or the AWS SDK's default chain
 * (environment, profile), and is always signed.
 */
final class NodeTargets {

    /** Endpoints resolved as the client would, virtual-hosted style (the client itself is path-style). */
    static final S3EndpointProvider VIRTUAL_HOSTED = params -> S3EndpointProvider.defaultProvider()
            .resolveEndpoint(params.toBuilder().forcePathStyle(false).build());

    private static final ExecutionInterceptor NO_EXPECT_CONTINUE = new ExecutionInterceptor() {

        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            return context.httpRequest().toBuilder().removeHeader("Expect").build();
        }
    };

    /** How calls to one node are signed: credentials, region, and whether anything is signed at all. */
    private record Signer(AwsCredentialsProvider credentials, Region region, boolean signed) {
    }

    /** How calls to promptcache's own nodes are signed. */
    private final Signer nodes;
    /** The credentials of each external endpoint, by node id (its region is its status's, event-schema's rule). */
    private final Map<String, AwsCredentialsProvider> externals = new ConcurrentHashMap<>();
    private final Map<String, AwsRequestOverrideConfiguration> targets = new ConcurrentHashMap<>();
    private final Map<String, AwsRequestOverrideConfiguration> onceTargets = new ConcurrentHashMap<>();
    private final Map<String, AwsRequestOverrideConfiguration> controlTargets = new ConcurrentHashMap<>();
    /** The longest a bodiless call to one of promptcache's own nodes may take, all attempts together. */
    private final Duration controlTimeout;
    private final Map<String, S3Presigner> presigners = new ConcurrentHashMap<>();
    /** The keys this service signs with, closed with it (a key read from a file is re-read until then). */
    private final List<StorageKey.Source> keys = new ArrayList<>();
    /** The GET URLs of promptcache's own nodes, when they are signed. */
    private final Optional<PresignedGets> ownGets;
    /** The PUTs to promptcache's own nodes, signed with their key if there is one. */
    private final OwnNodePuts ownPuts;

    NodeTargets(IndexConfig.Storage storage, OwnNodeHttp.Transport transport) {
        Optional<StorageKey.Source> key = StorageKey.of(IndexConfig.STORAGE, storage.accessKeyId(),
                storage.secretAccessKey(), storage.credentialsFile(), storage.reloadInterval());
        key.ifPresent(keys::add);
        this.nodes = new Signer(key.map(NodeTargets::provider).orElseGet(AnonymousCredentialsProvider::create),
                Region.of(storage.region()), key.isPresent());
        Optional<SigningDay> signing = key.map(k -> new SigningDay(k, storage.region(), Clock.systemUTC()));
        this.ownGets = signing.map(PresignedGets::new);
        this.ownPuts = new OwnNodePuts(new OwnNodeHttp(signing, transport));
        this.controlTimeout = transport.connectTimeout().plus(transport.readTimeout());
        storage.external().forEach((id, endpoint) -> {
            Optional<StorageKey.Source> own = StorageKey.of(IndexConfig.EXTERNAL + id + ".",
                    endpoint.accessKeyId(), endpoint.secretAccessKey(), endpoint.credentialsFile(),
                    storage.reloadInterval());
            own.ifPresent(keys::add);
            externals.put(id, own.map(NodeTargets::provider)
                    .orElseGet(() -> DefaultCredentialsProvider.builder().build()));
        });
    }

    /** A fixed or rotating key as the SDK's credentials. */
    private static AwsCredentialsProvider provider(Supplier<StorageKey> key) {
        return () -> AwsBasicCredentials.create(key.get().accessKeyId(), key.get().secretAccessKey());
    }

    private Signer signer(NodeStatus node) {
        AwsCredentialsProvider external = node.hasExternal() ? externals.get(node.getNodeId()) : null;
        return external != null ? new Signer(external, Region.of(node.getExternal().getRegion()), true) : nodes;
    }

    /** Whether calls to {@code node} are signed and its URLs presigned (always for an external endpoint). */
    boolean signed(NodeStatus node) {
        return node.hasExternal() || nodes.signed();
    }

    /** The request override that sends a request to {@code node}. */
    AwsRequestOverrideConfiguration at(NodeStatus node) {
        return targets.computeIfAbsent(targetKey(node), k -> target(node, false));
    }

    /**
     * As {@link #at}, for a call that sends and receives no body (HEAD, bucket checks, multipart steps, a copy on the
     * node): to promptcache's own nodes bounded as a whole, all attempts together, by the connect and read timeouts of
     * node calls ({@link OwnNodeHttp.Transport}), so a paused node costs the call seconds, not the SDK's 30 s socket
     * timeout per attempt. External endpoints keep the SDK's own bounds (their copies may move the bytes).
     */
    AwsRequestOverrideConfiguration control(NodeStatus node) {
        if (!own(node)) {
            return at(node);
        }
        return controlTargets.computeIfAbsent(targetKey(node), k -> at(node).toBuilder().apiCallTimeout(
                controlTimeout).build());
    }

    /**
     * As {@link #at}, with no retry: for a body streamed through from the engine, which cannot be read twice. A
     * retry of such a PUT would fail on the spent stream with an {@link IllegalStateException} instead of
     * reporting what made the first attempt fail. Sent without {@code Expect: 100-continue}: with it, the url
     * client (the JDK's HttpURLConnection) left some PUTs to a busy node waiting for the response head until its
     * read timeout (seen by the stack's bench and gc-processor's benchmark).
     */
    AwsRequestOverrideConfiguration once(NodeStatus node) {
        return onceTargets.computeIfAbsent(targetKey(node), k -> target(node, true));
    }

    /** Node id and endpoint: a node that comes back elsewhere, or an endpoint named twice, gets its own target. */
    private static String targetKey(NodeStatus node) {
        return node.getNodeId() + " " + node.getEndpoint();
    }

    private AwsRequestOverrideConfiguration target(NodeStatus node, boolean once) {
        URI uri = URI.create(node.getEndpoint());
        Signer signer = signer(node);
        SdkPlugin plugin = config -> {
            S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) config;
            s3.endpointOverride(uri).region(signer.region()).credentialsProvider(signer.credentials());
            if (!ExternalNodes.pathStyle(node)) {
                s3.endpointProvider(VIRTUAL_HOSTED);
            }
            if (once) {
                s3.overrideConfiguration(s3.overrideConfiguration().toBuilder()
                        .retryStrategy(AwsRetryStrategy.doNotRetry()).addExecutionInterceptor(NO_EXPECT_CONTINUE)
                        .build());
            }
        };
        return AwsRequestOverrideConfiguration.builder().addPlugin(plugin).build();
    }

    /**
     * The signer of {@code node}'s GET URLs without the SDK ({@link PresignedGets}): for promptcache's own signed
     * nodes at an endpoint without a path; empty for the others (the SDK's presigner makes theirs).
     */
    Optional<PresignedGets> ownGets(NodeStatus node) {
        return own(node) ? ownGets : Optional.empty();
    }

    /**
     * The PUTs of {@code node} without the SDK ({@link OwnNodePuts}): for promptcache's own nodes at an endpoint
     * without a path, signed or not; empty for the others.
     */
    Optional<OwnNodePuts> ownPuts(NodeStatus node) {
        return own(node) ? Optional.of(ownPuts) : Optional.empty();
    }

    /** One of promptcache's own nodes, at an endpoint without a path (where a request's path is bucket/key). */
    private static boolean own(NodeStatus node) {
        return !node.hasExternal() && OwnNodeHttp.pathless(node.getEndpoint());
    }

    /** The presigner of {@code node}'s URLs. */
    S3Presigner presigner(NodeStatus node) {
        Signer signer = signer(node);
        return presigners.computeIfAbsent(targetKey(node), k -> presigner(node, signer.credentials(),
                signer.region()));
    }

    /** A presigner for {@code node}'s endpoint, region and addressing style. */
    static S3Presigner presigner(NodeStatus node, AwsCredentialsProvider credentials, Region region) {
        return S3Presigner.builder().endpointOverride(URI.create(node.getEndpoint())).region(region)
                .credentialsProvider(credentials)
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(ExternalNodes.pathStyle(node))
                        .build())
                .build();
    }

    void close() {
        presigners.values().forEach(S3Presigner::close);
        keys.forEach(StorageKey.Source::close);
    }
}
