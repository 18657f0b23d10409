package io.promptcache.schema.node;

import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

import io.promptcache.devservices.launcher.TlsMaterial;

/** The server side of a test's TLS: a context serving the certificate of {@code tls}'s key store. */
final class ServerTls {

    private ServerTls() {
    }

    static SSLContext context(TlsMaterial tls) throws Exception {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(tls.keyStore())) {
            keys.load(in, tls.password().toCharArray());
        }
        KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        factory.init(keys, tls.password().toCharArray());
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(factory.getKeyManagers(), null, null);
        return context;
    }
}
