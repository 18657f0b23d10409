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

    /** The access key it signs its calls to storage nodes with. */
    public T storageCredentials(String accessKeyId, String secret) {
        put(prefix + "storage.access-key-id", accessKeyId);
        put(prefix + "storage.secret-access-key", secret);
        return self();
    }
}
