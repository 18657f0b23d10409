package io.promptcache.index.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.eclipse.microprofile.config.Config;

/**
 * What calls to storage nodes over HTTPS trust, for the clients that are not the S3 client (the node probes): the S3
 * client's own setting, so there is one. {@code quarkus.s3.sync-client.tls-trust-managers-provider.type=file-store}
 * with its {@code file-store.path}, {@code .type} (PKCS12 unless set) and {@code .password}: that store's CAs only;
 * unset (or {@code system-property}): the JVM's default trust. {@code trust-all} is not followed here: a probe never
 * trusts a certificate it cannot verify (such a node then does not answer its probe).
 */
final class NodeTrust {

    static final String PROVIDER = "quarkus.s3.sync-client.tls-trust-managers-provider.";

    private NodeTrust() {
    }

    static SSLContext context(Config config) {
        String type = config.getOptionalValue(PROVIDER + "type", String.class).orElse("system-property");
        if (!type.equals("file-store")) {
            return defaultContext();
        }
        Path path = config.getOptionalValue(PROVIDER + "file-store.path", Path.class).orElseThrow(
                () -> new IllegalArgumentException(PROVIDER + "type=file-store needs " + PROVIDER + "file-store.path"));
        String storeType = config.getOptionalValue(PROVIDER + "file-store.type", String.class).orElse("PKCS12");
        char[] password = config.getOptionalValue(PROVIDER + "file-store.password", String.class)
                .map(String::toCharArray)
                .orElse(null);
        try (InputStream in = Files.newInputStream(path)) {
            KeyStore store = KeyStore.getInstance(storeType);
            store.load(in, password);
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, factory.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the storage nodes' trust store " + path, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("the storage nodes' trust store " + path + " cannot be used: "
                    + e.getMessage(), e);
        }
    }

    private static SSLContext defaultContext() {
        try {
            return SSLContext.getDefault();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no default TLS context", e);
        }
    }
}
