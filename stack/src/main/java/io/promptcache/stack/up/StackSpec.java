package io.promptcache.stack.up;

import java.nio.file.Path;
import java.util.Map;

import io.promptcache.devservices.launcher.S3Endpoint;

/**
 * What to start.
 *
 * @param home the promptcache checkout whose packaged services run ({@code <module>/target/quarkus-app})
 * @param dataDir where data and logs go and stay; null for a throwaway directory deleted at stop
 * @param nodes storage nodes
 * @param replicas index-service replicas
 * @param gcs gc-processors (0: none, nothing is ever evicted; more than one share the work, as Kafka Streams
 *        instances of one application)
 * @param indexPort the first replica's HTTP port (the next ones count up); 0: free ports
 * @param nodePort the first storage node's port (the next ones count up); 0: free ports
 * @param gcPort the first gc-processor's port (the next ones count up); 0: free ports
 * @param nodeCapacity bytes each storage node holds
 * @param kafka an external Kafka's bootstrap servers; null to run the embedded broker
 * @param indexConfig, nodeConfig, gcConfig extra configuration of each kind of service (key -> value)
 * @param signedStorage whether the storage nodes check SigV4 (the index and the GC sign with credentials made for
 *        this start; lookups return presigned URLs)
 * @param apiKey the API key of tenant {@value #TENANT} (the index then refuses requests without it), or null for
 *        an open index
 * @param tls whether every service serves HTTPS only, with a throwaway CA made at start (the index and the GC trust
 *        it for their calls to the nodes; presigned URLs are https)
 * @param s3 an external S3 endpoint the index and the GC store on as node {@link S3Endpoint#ID} (beside the storage
 *        nodes, of which there may then be none), or null
 * @param jvm the services' JVM and AOT caches
 */
public record StackSpec(Path home, Path dataDir, int nodes, int replicas, int gcs, int indexPort, int nodePort,
        int gcPort, long nodeCapacity, String kafka, Map<String, String> indexConfig, Map<String, String> nodeConfig,
        Map<String, String> gcConfig, boolean signedStorage, String apiKey, boolean tls, S3Endpoint s3, Jvm jvm) {

    /** The tenant whose key {@code --auth} makes. */
    public static final String TENANT = "local";
    /**
     * The principal of that key, {@code local/engines}: the owner of what it stores, kept when the key is rotated
     * within it (a line {@code local/engines=<old>,<new>}, then {@code local/engines=<new>}).
     */
    public static final String PRINCIPAL = TENANT + "/engines";

    public StackSpec {
        if (nodes < (s3 == null ? 1 : 0) || replicas < 1 || gcs < 0) {
            throw new IllegalArgumentException("a stack needs at least one storage node (or an external S3 endpoint)"
                    + " and one index replica (got " + nodes + " and " + replicas + ")");
        }
        if (nodeCapacity < 1 << 20) {
            throw new IllegalArgumentException("a storage node needs at least 1 MiB (got " + nodeCapacity + " B)");
        }
        indexConfig = Map.copyOf(indexConfig);
        nodeConfig = Map.copyOf(nodeConfig);
        gcConfig = Map.copyOf(gcConfig);
        jvm = jvm == null ? Jvm.DEFAULT : jvm;
    }

    /** A stack on the launcher's JVM, without AOT caches. */
    public StackSpec(Path home, Path dataDir, int nodes, int replicas, int gcs, int indexPort, int nodePort,
            int gcPort, long nodeCapacity, String kafka, Map<String, String> indexConfig,
            Map<String, String> nodeConfig, Map<String, String> gcConfig, boolean signedStorage, String apiKey,
            boolean tls, S3Endpoint s3) {
        this(home, dataDir, nodes, replicas, gcs, indexPort, nodePort, gcPort, nodeCapacity, kafka, indexConfig,
                nodeConfig, gcConfig, signedStorage, apiKey, tls, s3, Jvm.DEFAULT);
    }

    /** A stack of plain HTTP services. */
    public StackSpec(Path home, Path dataDir, int nodes, int replicas, int gcs, int indexPort, int nodePort,
            int gcPort, long nodeCapacity, String kafka, Map<String, String> indexConfig,
            Map<String, String> nodeConfig, Map<String, String> gcConfig, boolean signedStorage, String apiKey) {
        this(home, dataDir, nodes, replicas, gcs, indexPort, nodePort, gcPort, nodeCapacity, kafka, indexConfig,
                nodeConfig, gcConfig, signedStorage, apiKey, false, null, Jvm.DEFAULT);
    }

    /**
     * One storage node (256 MiB, SigV4), one index replica and one GC of {@code home}'s packaged services on free
     * ports, plain HTTP, throwaway data, on {@code jvm}: what {@code train} runs its bench against.
     */
    public static StackSpec oneOfEach(Path home, Jvm jvm) {
        return new StackSpec(home, null, 1, 1, 1, 0, 0, 0, 256L << 20, null, Map.of(), Map.of(), Map.of(), true, null,
                false, null, jvm);
    }

    /** This stack over TLS ({@code tls}). */
    public StackSpec withTls() {
        return new StackSpec(home, dataDir, nodes, replicas, gcs, indexPort, nodePort, gcPort, nodeCapacity, kafka,
                indexConfig, nodeConfig, gcConfig, signedStorage, apiKey, true, s3, jvm);
    }

}
