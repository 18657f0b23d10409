package io.promptcache.stack.cli;

import java.nio.file.Path;

import javax.net.ssl.SSLContext;

import io.promptcache.devservices.launcher.TlsMaterial;

/** What the stack's tools trust for HTTPS: the JVM's default CAs, or a stack's own CA once told. */
public final class Trust {

    private Trust() {
    }

    /**
     * Makes the default TLS context of this process trust the certificates of {@code caPem} (PEM) and nothing else:
     * every JDK HTTP client built afterwards verifies the stack's services against it.
     */
    public static void caFile(Path caPem) {
        SSLContext.setDefault(TlsMaterial.trusting(caPem));
    }
}
