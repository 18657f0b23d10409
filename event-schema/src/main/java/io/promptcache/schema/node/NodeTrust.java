package io.promptcache.schema.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.util.Optional;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * What calls to storage nodes over HTTPS trust, for the clients that are not the S3 client (the index's node probes
 * and own PUTs, the GC's own marks and deletes): the S3 client's own setting, so there is one.
 * {@code quarkus.s3.sync-client.tls-trust-managers-provider.type=file-store} with its {@code file-store.path},
 * {@code .type} (PKCS12 unless set) and {@code .password}: that store's CAs only; unset (or {@code system-property}):
 * the JVM's default trust. {@code trust-all} is not followed here: such a call never trusts a certificate it cannot
 * verify (such a node then does not answer it).
 */
public final class NodeTrust {

    public static final String PROVIDER = "quarkus.s3.sync-client.tls-trust-managers-provider.";

    /** A service's settings by name (MicroProfile Config's {@code getOptionalValue(name, String.class)}). */
    @FunctionalInterface
    public interface Settings {

        Optional<String> get(String name);
    }

    private NodeTrust() {
    }

    public static SSLContext context(Settings settings) {
        String type = settings.get(PROVIDER + "type").orElse("system-property");
        if (!type.equals("file-store")) {
            return defaultContext();
        }
        Path path = settings.get(PROVIDER + "file-store.path").map(Path::of).orElseThrow(
                () -> new IllegalArgumentException(PROVIDER + "type=file-store needs " + PROVIDER + "file-store.path"));
        String storeType = settings.get(PROVIDER + "file-store.type").orElse("PKCS12");
        char[] password = settings.get(PROVIDER + "file-store.password").map(String::toCharArray).orElse(null);
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
