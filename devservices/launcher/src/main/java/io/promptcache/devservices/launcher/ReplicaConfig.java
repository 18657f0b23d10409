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

    /** Stores on (and evicts from) an external S3 endpoint, as node {@link S3Endpoint#ID}. */
    public T external(S3Endpoint s3) {
        String at = prefix + "storage.external." + S3Endpoint.ID + ".";
        put(at + "endpoint", s3.endpoint());
        put(at + "bucket", s3.bucket());
        put(at + "region", s3.region());
        put(at + "budget-bytes", Long.toString(s3.budgetBytes()));
        put(at + "copy", s3.copy());
        put(at + "create-bucket", Boolean.toString(s3.createBucket()));
        put(at + "path-style", Boolean.toString(!s3.virtualHosted()));
        if (s3.minPartBytes() != null) {
            put(at + "min-part-bytes", Long.toString(s3.minPartBytes()));
        }
        if (s3.credentialsFile() != null) {
            put(at + "credentials-file", s3.credentialsFile().toString());
        }
        return self();
    }

    /** The access key it signs its calls to storage nodes with. */
    public T storageCredentials(String accessKeyId, String secret) {
        put(prefix + "storage.access-key-id", accessKeyId);
        put(prefix + "storage.secret-access-key", secret);
        return self();
    }
}
