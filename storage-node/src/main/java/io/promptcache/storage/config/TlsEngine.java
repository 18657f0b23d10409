package io.promptcache.storage.config;

import jakarta.enterprise.context.ApplicationScoped;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.quarkus.vertx.http.HttpServerOptionsCustomizer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;

/**
 * The HTTPS listener's TLS implementation ({@code promptcache.storage.tls.engine}): OpenSSL (BoringSSL) where its
 * native library loads, else the JDK's, said once at start.
 */
@ApplicationScoped
public class TlsEngine implements HttpServerOptionsCustomizer {

    private static final Logger LOG = LoggerFactory.getLogger(TlsEngine.class);

    private final StorageConfig.TlsEngineKind wanted;
    private volatile StorageConfig.TlsEngineKind chosen;

    TlsEngine(StorageConfig config) {
        this.wanted = config.tlsEngine();
    }

    @Override
    public void customizeHttpsServer(HttpServerOptions options) {
        StorageConfig.TlsEngineKind kind = wanted;
        if (kind == StorageConfig.TlsEngineKind.OPENSSL && !OpenSSLEngineOptions.isAvailable()) {
            LOG.warn("promptcache.storage.tls.engine=openssl, but netty-tcnative's BoringSSL cannot load here ({}): "
                    + "HTTPS uses the JDK's TLS, which costs range GETs more CPU", unavailability());
            kind = StorageConfig.TlsEngineKind.JDK;
        }
        options.setSslEngineOptions(kind == StorageConfig.TlsEngineKind.OPENSSL
                ? new OpenSSLEngineOptions()
                : new JdkSSLEngineOptions());
        if (chosen == null) {
            LOG.info("HTTPS served with the {} TLS engine", kind == StorageConfig.TlsEngineKind.OPENSSL
                    ? "OpenSSL (BoringSSL)"
                    : "JDK");
        }
        chosen = kind;
    }

    /** The engine the HTTPS listener was given, or null if the node serves no HTTPS. */
    public StorageConfig.TlsEngineKind chosen() {
        return chosen;
    }

    private static String unavailability() {
        Throwable cause = io.netty.handler.ssl.OpenSsl.unavailabilityCause();
        return cause == null ? "no cause given" : cause.toString();
    }
}
