package io.promptcache.index.storage;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.promptcache.devservices.testing.S3ProxyServer;
import io.promptcache.schema.proto.NodeStatus;
import io.quarkus.test.junit.QuarkusTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A server that knows nothing of promptcache's prefixed PUT (S3Proxy, a real third-party S3 server: it ignores the
 * headers and stores the body alone) taken for a node that takes them, as an older node whose status was misread
 * would be: the missing echo is caught, the wrong object deleted, and the store fails instead of advertising it.
 */
@QuarkusTest
class PrefixedPutGuardTest {

    private static S3ProxyServer proxy;

    @Inject
    NodeStorage storage;

    @BeforeAll
    static void startProxy() {
        proxy = S3ProxyServer.startOpen(Path.of("target", "s3proxy-guard-" + System.nanoTime()).toAbsolutePath());
    }

    @AfterAll
    static void stopProxy() {
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void shouldDeleteWhatAServerThatIgnoredThePrefixStoredAndFail() {
        NodeStatus node = NodeStatus.newBuilder().setNodeId("not-a-promptcache-node").setEndpoint(proxy.endpoint())
                .setPrefixPuts(true).build();
        storage.prepare(node);
        String bucket = storage.bucket(node);
        storage.put(node, "parent", new ByteArrayInputStream(new byte[1000]), 1000, false);
        // When
        assertThatThrownBy(() -> storage.putPrefixed(node, "child", false, bucket, "parent", 600,
                new ByteArrayInputStream(new byte[200]), 200)).isInstanceOfSatisfying(StorageCallException.class,
                        e -> {
                            assertThat(e.kind()).isEqualTo(StorageCallException.Kind.REFUSED);
                            assertThat(e.getMessage()).contains("did not take the continuation's prefix");
                        });
        // Then: the 200 bytes it stored under the key are gone; the parent is untouched
        assertThatThrownBy(() -> storage.size(node, bucket, "child")).isInstanceOfSatisfying(
                StorageCallException.class, e -> assertThat(e.kind()).isEqualTo(StorageCallException.Kind.NOT_FOUND));
        assertThat(storage.size(node, bucket, "parent")).isEqualTo(1000);
    }
}
