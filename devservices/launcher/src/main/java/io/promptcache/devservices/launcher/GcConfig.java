package io.promptcache.devservices.launcher;

import java.nio.file.Path;

/** A gc-processor's configuration keys (gc-processor README, "Configuration"). */
public final class GcConfig extends ReplicaConfig<GcConfig> {

    private GcConfig(String bootstrap, String instanceId, int port, Path stateDir) {
        super("promptcache.gc.", bootstrap, instanceId, port, stateDir);
    }

    /** Instance {@code instanceId} on 127.0.0.1:{@code port}, its Kafka Streams state under {@code stateDir}. */
    public static GcConfig of(String bootstrap, String instanceId, int port, Path stateDir) {
        return new GcConfig(bootstrap, instanceId, port, stateDir);
    }
}
