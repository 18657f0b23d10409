package io.promptcache.gc;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import io.promptcache.devservices.testing.StorageNodeFixture;
import io.promptcache.gc.testing.ClusterClient;

/**
 * The fixture of the GC's {@code @QuarkusTest}s on a real node: devservices-testing's node fixture, and a client that
 * uploads to that node and writes the index's records for it ({@link ClusterClient}).
 */
abstract class NodeBackedGcTest extends StorageNodeFixture {

    protected static ClusterClient cluster;

    @BeforeAll
    static void connect() {
        cluster = new ClusterClient(bootstrapServers(), node.nodeId(), node.endpoint());
    }

    @AfterAll
    static void disconnect() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
