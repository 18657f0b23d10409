package io.promptcache.schema.node;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.promptcache.devservices.launcher.TlsMaterial;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Calls to nodes outside the S3 client trust what it trusts: its file-store trust store, else the JVM's default. */
class NodeTrustTest {

    @TempDir
    Path dir;

    @Test
    void shouldVerifyANodeAgainstTheS3ClientsTrustStoreOnly() throws Exception {
        // Given: a TLS server with a certificate of one CA; the S3 client's trust set to that CA, or to another
        TlsMaterial node = TlsMaterial.create(dir.resolve("node"));
        TlsMaterial other = TlsMaterial.create(dir.resolve("other"));

        // When / Then: a handshake with the node's CA trusted succeeds, with the other CA trusted fails
        try (SSLServerSocket server = server(node)) {
            CompletableFuture<Void> accepted = CompletableFuture.runAsync(() -> accept(server, 2));
            handshake(NodeTrust.context(fileStore(node)), server.getLocalPort());
            assertThatThrownBy(() -> handshake(NodeTrust.context(fileStore(other)), server.getLocalPort()))
                    .isInstanceOf(SSLHandshakeException.class);
            accepted.join();
        }
    }

    @Test
    void shouldUseTheJvmDefaultWithoutAFileStoreAndRefuseAFileStoreWithoutAPath() throws Exception {
        assertThat(NodeTrust.context(config(Map.of()))).isSameAs(SSLContext.getDefault());
        assertThat(NodeTrust.context(config(Map.of(NodeTrust.PROVIDER + "type", "trust-all"))))
                .as("never trust-all for a probe").isSameAs(SSLContext.getDefault());
        assertThatThrownBy(() -> NodeTrust.context(config(Map.of(NodeTrust.PROVIDER + "type", "file-store"))))
                .hasMessageContaining("file-store.path");
    }

    private static NodeTrust.Settings fileStore(TlsMaterial tls) {
        return config(Map.of(NodeTrust.PROVIDER + "type", "file-store", NodeTrust.PROVIDER + "file-store.path",
                tls.trustStore().toString(), NodeTrust.PROVIDER + "file-store.type", "PKCS12",
                NodeTrust.PROVIDER + "file-store.password", tls.password()));
    }

    private static NodeTrust.Settings config(Map<String, String> properties) {
        return name -> Optional.ofNullable(properties.get(name));
    }

    private static SSLServerSocket server(TlsMaterial tls) throws Exception {
        SSLServerSocket server = (SSLServerSocket) ServerTls.context(tls).getServerSocketFactory()
                .createServerSocket(0);
        server.setSoTimeout(10_000);
        return server;
    }

    /** Accepts {@code count} connections, each handshaken (or failed) and closed. */
    private static void accept(SSLServerSocket server, int count) {
        for (int i = 0; i < count; i++) {
            try (SSLSocket socket = (SSLSocket) server.accept()) {
                socket.startHandshake();
            } catch (java.io.IOException refusedByTheClient) {
                // the second client does not trust this certificate
            }
        }
    }

    private static void handshake(SSLContext client, int port) throws Exception {
        try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.startHandshake();
        }
    }
}
