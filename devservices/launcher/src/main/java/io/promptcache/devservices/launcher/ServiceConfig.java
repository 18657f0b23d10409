package io.promptcache.devservices.launcher;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The system properties a packaged service is started with, built by the one class that owns its keys
 * ({@link StorageNodeConfig}, {@link IndexConfig}, {@link GcConfig}): the local stack, the tests and the benchmarks
 * all start services through them, so a key is written in one place.
 */
public abstract class ServiceConfig<T extends ServiceConfig<T>> {

    private final Map<String, String> properties = new LinkedHashMap<>();

    ServiceConfig(String bootstrap, int port) {
        put("quarkus.http.port", Integer.toString(port));
        put("kafka.bootstrap.servers", bootstrap);
    }

    /** Further properties, each {@code key=value}; they win over what the builder set. */
    public T with(Map<String, String> extra) {
        properties.putAll(extra);
        return self();
    }

    /** One further property. */
    public T with(String key, String value) {
        properties.put(key, value);
        return self();
    }

    /**
     * HTTPS only, on the service's port, with the server key of {@code tls} (Quarkus' TLS registry): no plain HTTP
     * listener is opened. Start the process {@link ServiceProcess#withTls with a client context} that trusts it.
     */
    public T tls(TlsMaterial tls) {
        put("quarkus.http.ssl-port", properties.get("quarkus.http.port"));
        put("quarkus.http.insecure-requests", "disabled");
        put("quarkus.tls.key-store.p12.path", tls.keyStore().toString());
        put("quarkus.tls.key-store.p12.password", tls.password());
        return self();
    }

    /**
     * HTTPS on {@code sslPort} with the server key of {@code tls}, beside plain HTTP on the service's port (for
     * benchmarks that compare the two on one server; a deployment uses {@link #tls}).
     */
    public T alsoTls(TlsMaterial tls, int sslPort) {
        put("quarkus.http.ssl-port", Integer.toString(sslPort));
        put("quarkus.tls.key-store.p12.path", tls.keyStore().toString());
        put("quarkus.tls.key-store.p12.password", tls.password());
        return self();
    }

    /** The service's root log level ({@code WARN} keeps a test's output short). */
    public T logLevel(String level) {
        return with("quarkus.log.level", level);
    }

    public Map<String, String> toMap() {
        return new LinkedHashMap<>(properties);
    }

    final void put(String key, String value) {
        properties.put(key, value);
    }

    /** A duration as the services read it ({@code 500ms}). */
    static String duration(Duration duration) {
        return duration.toMillis() + "ms";
    }

    @SuppressWarnings("unchecked")
    final T self() {
        return (T) this;
    }
}
