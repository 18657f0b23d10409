package io.promptcache.schema.node;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import io.promptcache.schema.key.NodeId;
import io.promptcache.schema.proto.ContinuationCopy;
import io.promptcache.schema.proto.ExternalEndpoint;
import io.promptcache.schema.proto.NodeState;
import io.promptcache.schema.proto.NodeStatus;
import io.promptcache.schema.serde.SchemaVersion;

/**
 * External S3 endpoints (MinIO, Ceph RGW, AWS S3, S3Proxy) as storage "nodes": the one rule index-service and
 * gc-processor both read their {@code storage.external.<id>.*} configuration with, so they cannot disagree on a field
 * or a default. Such a node sends no heartbeats: each service holds the {@link NodeStatus} made here in memory (never
 * published on {@code nodes}) and keeps its state and heartbeat time from its own probes
 * ({@link #probed}). docs/architecture.md, "External S3 endpoints".
 */
public final class ExternalNodes {

    /** S3's smallest multipart part (all but the last): a shorter shared prefix cannot be a copied part. */
    public static final long S3_MIN_PART_BYTES = 5L << 20;
    /** How often the services probe an external endpoint: its "heartbeat interval". */
    public static final int PROBE_INTERVAL_MS = 2_000;
    /**
     * Prefix of the index's {@code store} health data entry that says what is wrong with an endpoint its probe
     * refused: {@code external.<id>} -> what to fix. Written by index-service, read by {@code promptcache up}.
     */
    public static final String HEALTH_PROBLEM_PREFIX = "external.";

    private ExternalNodes() {
    }

    /** One endpoint's configuration ({@code <prefix>external.<id>.*}); a Quarkus config group of both services. */
    public interface Endpoint {

        /** Base URL of the S3 service, {@code http(s)://host[:port]}. */
        String endpoint();

        /** Bucket promptcache writes to there; default: the service's KV bucket. */
        Optional<String> bucket();

        /** SigV4 region; default {@code us-east-1}. */
        Optional<String> region();

        /**
         * Path-style requests ({@code host/bucket/key}: every S3-compatible server serves them); false:
         * virtual-hosted style ({@code bucket.host/key}, for a service that requires it). Default true.
         */
        Optional<Boolean> pathStyle();

        /** Bytes promptcache may keep there: the GC evicts down to its low watermark of this. Required. */
        long budgetBytes();

        /**
         * How the server serves UploadPartCopy: {@code reference} (shares the bytes), {@code copy} (copies them:
         * the default), {@code none} (no continuations there).
         */
        Optional<String> copy();

        /** Shared bytes a continuation needs at least; default 5 MiB (S3's smallest part). */
        Optional<Long> minPartBytes();

        /** Create the bucket when it does not exist; default false (the endpoint is then down, said in the log). */
        Optional<Boolean> createBucket();

        /** Access key; unset (and no credentials file): the AWS SDK's default chain (environment, profile, ...). */
        Optional<String> accessKeyId();

        Optional<String> secretAccessKey();

        /** Instead of the two above: a credentials file as for storage nodes, re-read while the service runs. */
        Optional<Path> credentialsFile();
    }

    /**
     * The endpoints of a configuration as node statuses (state DOWN, no probe yet), by node id.
     *
     * @param prefix the configuration prefix of the map, for messages ({@code promptcache.index.storage.external.})
     * @param defaultBucket the service's KV bucket
     * @throws IllegalArgumentException naming the property that is wrong
     */
    public static Map<String, NodeStatus> statuses(String prefix, Map<String, ? extends Endpoint> endpoints,
            String defaultBucket) {
        Map<String, NodeStatus> statuses = new LinkedHashMap<>();
        Map<String, String> idsByUrl = new LinkedHashMap<>();
        endpoints.forEach((id, endpoint) -> {
            NodeStatus status = status(prefix + id + ".", id, endpoint, defaultBucket);
            String other = idsByUrl.putIfAbsent(status.getEndpoint(), id);
            if (other != null) {
                throw new IllegalArgumentException(prefix + other + ".endpoint and " + prefix + id
                        + ".endpoint are the same URL " + status.getEndpoint() + ": name each endpoint once");
            }
            statuses.put(id, status);
        });
        return statuses;
    }

    private static NodeStatus status(String prefix, String id, Endpoint endpoint, String defaultBucket) {
        try {
            new NodeId(id);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(prefix + ": " + id + " is not a valid node id: " + e.getMessage(), e);
        }
        if (endpoint.budgetBytes() <= 0) {
            throw new IllegalArgumentException(prefix + "budget-bytes must be positive, not " + endpoint.budgetBytes());
        }
        long minPart = endpoint.minPartBytes().orElse(S3_MIN_PART_BYTES);
        if (minPart < 0) {
            throw new IllegalArgumentException(prefix + "min-part-bytes must be 0 or more, not " + minPart);
        }
        ExternalEndpoint external = ExternalEndpoint.newBuilder()
                .setBucket(endpoint.bucket().orElse(defaultBucket))
                .setRegion(endpoint.region().orElse("us-east-1"))
                .setCopy(copy(prefix, endpoint.copy().orElse("copy")))
                .setMinPartBytes(minPart)
                .setCreateBucket(endpoint.createBucket().orElse(false))
                .setVirtualHosted(!endpoint.pathStyle().orElse(true))
                .build();
        return NodeStatus.newBuilder().setSchemaVersion(SchemaVersion.CURRENT).setNodeId(id)
                .setEndpoint(baseUrl(prefix, endpoint.endpoint())).setCapacityBytes(endpoint.budgetBytes())
                .setState(NodeState.NODE_STATE_DOWN).setHeartbeatIntervalMs(PROBE_INTERVAL_MS)
                .setExternal(external).build();
    }

    private static String baseUrl(String prefix, String url) {
        try {
            URI uri = new URI(url);
            if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                    || (uri.getPath() != null && !uri.getPath().isEmpty() && !uri.getPath().equals("/"))
                    || uri.getQuery() != null) {
                throw new IllegalArgumentException(prefix + "endpoint must be http(s)://host[:port], not " + url);
            }
            return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(prefix + "endpoint is not a URL: " + url, e);
        }
    }

    private static ContinuationCopy copy(String prefix, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "reference" -> ContinuationCopy.CONTINUATION_COPY_REFERENCE;
            case "copy" -> ContinuationCopy.CONTINUATION_COPY_COPY;
            case "none" -> ContinuationCopy.CONTINUATION_COPY_NONE;
            default -> throw new IllegalArgumentException(prefix + "copy is reference, copy or none, not " + value);
        };
    }

    /** Whether requests to {@code node} name the bucket in the path (all but a virtual-hosted external endpoint). */
    public static boolean pathStyle(NodeStatus node) {
        return !node.hasExternal() || !node.getExternal().getVirtualHosted();
    }

    /** The bucket promptcache writes to on {@code node}: an external endpoint's own, else the service's. */
    public static String bucketOf(NodeStatus node, String defaultBucket) {
        return node.hasExternal() ? node.getExternal().getBucket() : defaultBucket;
    }

    /** Whether a store may continue an object on {@code node} sharing its first {@code sharedBytes}. */
    public static boolean continues(NodeStatus node, long sharedBytes) {
        if (!node.hasExternal()) {
            return true;
        }
        ExternalEndpoint external = node.getExternal();
        return external.getCopy() != ContinuationCopy.CONTINUATION_COPY_NONE
                && sharedBytes >= external.getMinPartBytes();
    }

    /**
     * Whether a continuation on {@code node} copies the shared bytes (it is then recorded as a whole object: its
     * bytes are all its own) rather than sharing them.
     */
    public static boolean copiesBytes(NodeStatus node) {
        return node.hasExternal() && node.getExternal().getCopy() != ContinuationCopy.CONTINUATION_COPY_REFERENCE;
    }

    /**
     * {@code external} as a reader of heartbeats that does not probe (the GC) holds it: UP and as fresh as the newest
     * heartbeat of {@code nodes} (now if there is none). Such an endpoint is a durable service: it is never judged
     * silent or lost (a DELETE that fails there is retried), and it never hides a stall of the heartbeats' feed
     * ({@link NodeLiveness#judgedAt} comes out the same with it as without it).
     */
    public static NodeStatus asOf(NodeStatus external, Iterable<NodeStatus> nodes, long now) {
        long newest = Long.MIN_VALUE;
        for (NodeStatus node : nodes) {
            if (node != null && !node.hasExternal()) {
                newest = Math.max(newest, node.getHeartbeatAtMs());
            }
        }
        return external.toBuilder().setState(NodeState.NODE_STATE_UP)
                .setHeartbeatAtMs(newest == Long.MIN_VALUE ? now : newest).build();
    }

    /** {@code node} as of a probe at {@code now}: UP with a fresh "heartbeat" if it answered, else DOWN. */
    public static NodeStatus probed(NodeStatus node, boolean up, long now) {
        NodeStatus.Builder probed = node.toBuilder().setState(up ? NodeState.NODE_STATE_UP : NodeState.NODE_STATE_DOWN);
        return up ? probed.setHeartbeatAtMs(now).build() : probed.build();
    }
}
