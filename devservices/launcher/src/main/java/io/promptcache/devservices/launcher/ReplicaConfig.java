package io.promptcache.devservices.launcher;

import java.nio.file.Path;

/**
 * A Kafka Streams service that calls storage nodes (index-service, gc-processor): its instance id, state directory and
 * storage credentials, under the service's key prefix.
 */
public abstract class ReplicaConfig<T extends ReplicaConfig<T>> extends ServiceConfig<T> {

    private final String prefix;

    ReplicaConfig(String prefix, String bootstrap, String instanceId, int port, Path stateDir) {
        super(bootstrap, port);
        this.prefix = prefix;
        put("kafka-streams.state.dir", stateDir.toString());
        put(prefix + "instance-id", instanceId);
    }

    /**
     * The CA its calls to storage nodes trust (the nodes serve HTTPS with {@code tls}): the S3 client's trust store
     * (quarkus-amazon-s3's {@code file-store} provider), which the index's node probes read too. Without it they
     * trust the JVM's default CAs, never everything.
     */
    public T trustNodes(TlsMaterial tls) {
        String provider = "quarkus.s3.sync-client.tls-trust-managers-provider.";
        put(provider + "type", "file-store");
        put(provider + "file-store.path", tls.trustStore().toString());
        put(provider + "file-store.type", "PKCS12");
        put(provider + "file-store.password", tls.password());
        return self();
    }

    /**
     * The access key it signs its calls to storage nodes with, read from {@code file} ({@code access-key-id=} and
     * {@code secret-access-key=} lines) and re-read while it runs.
     */
    public T storageCredentialsFile(Path file) {
        put(prefix + "storage.credentials-file", file.toString());
        return self();
    }

    /** The access key it signs its calls to storage nodes with. */
    public T storageCredentials(String accessKeyId, String secret) {
        put(prefix + "storage.access-key-id", accessKeyId);
        put(prefix + "storage.secret-access-key", secret);
        return self();
    }
}
