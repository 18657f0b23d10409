package io.promptcache.gc.testing;

import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.promptcache.devservices.EmbeddedKafkaBroker;
import io.promptcache.devservices.launcher.GcConfig;
import io.promptcache.devservices.launcher.ServiceProcess;
import io.promptcache.devservices.testing.StorageNodeProcess;

/**
 * The fixture of the failsafe tests that run packaged gc-processors: an in-JVM broker and a storage node process,
 * started once per class and stopped after it (the node first).
 */
public abstract class PackagedGcCluster {

    /** The class's broker (null outside its tests). */
    protected static EmbeddedKafkaBroker broker;
    /** The class's storage node (null outside its tests). */
    protected static StorageNodeProcess node;

    @BeforeAll
    static void startBrokerAndNode() {
        broker = EmbeddedKafkaBroker.start(EmbeddedKafkaBroker.Options.defaults());
        node = StorageNodeProcess.start(broker.bootstrapServers(), Map.of());
    }

    @AfterAll
    static void stopBrokerAndNode() {
        if (node != null) {
            node.close();
            node = null;
        }
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    /** A gc-processor instance {@code name} on the class's broker, on a free port, its state under {@code state}. */
    protected static GcConfig gcConfig(String name, Path state) {
        return GcConfig.of(broker.bootstrapServers(), name, ServiceProcess.freePort(), state);
    }

    /** A client of the class's broker and node (what an index-service does to them). */
    protected static ClusterClient clusterClient() {
        return new ClusterClient(broker.bootstrapServers(), node.nodeId(), node.endpoint());
    }
}
