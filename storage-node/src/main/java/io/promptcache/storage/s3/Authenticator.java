package io.promptcache.storage.s3;

import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import io.promptcache.schema.secret.SecretFile;
import io.promptcache.storage.auth.AuthMode;
import io.promptcache.storage.auth.SigV4Verifier;
import io.promptcache.storage.auth.SignedRequest;
import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.config.StorageConfig;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;

/**
 * Checks the signature of every S3 request when the node runs with {@code auth.mode=sigv4}; the verified
 * {@link SigningContext} stays on the routing context for the body checks (payload hash, chunk signatures).
 */
final class Authenticator {

    private static final String SIGNING = "promptcache.s3.signing";

    private final SigV4Verifier verifier;
    /** The credentials file's watch, or null without one. */
    private final SecretFile credentialsFile;

    private Authenticator(SigV4Verifier verifier, SecretFile credentialsFile) {
        this.verifier = verifier;
        this.credentialsFile = credentialsFile;
    }

    /** The authenticator the configuration asks for; null with {@code auth.mode=none}. */
    static Authenticator of(StorageConfig.Auth config) {
        if (config.mode() == AuthMode.NONE) {
            return null;
        }
        AtomicReference<Map<String, String>> secrets = new AtomicReference<>();
        SecretFile watch = null;
        if (config.credentialsFile().isPresent()) {
            // re-read while the node runs: a key is rotated by adding the new one, moving the clients, dropping the old
            watch = SecretFile.watch(config.credentialsFile().get(), config.reloadInterval(),
                    lines -> credentials(config.credentials(), lines), secrets::set);
        } else {
            secrets.set(credentials(config.credentials(), Map.of()));
        }
        return new Authenticator(new SigV4Verifier(secrets::get, config.region(), config.maxClockSkew(),
                Clock.systemUTC()), watch);
    }

    /** Stops re-reading the credentials file. */
    void close() {
        if (credentialsFile != null) {
            credentialsFile.close();
        }
    }

    /** The configured keys and a credentials file's lines ({@code <access-key-id>=<secret>}); at least one. */
    private static Map<String, String> credentials(Map<String, String> configured, Map<String, String> lines) {
        Map<String, String> all = new HashMap<>(configured);
        all.putAll(lines);
        if (all.isEmpty()) {
            throw new IllegalStateException("promptcache.storage.auth.mode=sigv4 (the default) needs at least one"
                    + " key: set promptcache.storage.auth.credentials.<access-key-id>=<secret-key> (env"
                    + " PROMPTCACHE_STORAGE_AUTH_CREDENTIALS_<ACCESS_KEY_ID>) or lines <access-key-id>=<secret-key> in"
                    + " promptcache.storage.auth.credentials-file, or promptcache.storage.auth.mode=none to accept"
                    + " unsigned requests (local use on a trusted host only)");
        }
        all.forEach((id, secret) -> {
            if (secret.isBlank()) {
                throw new IllegalStateException("access key " + id + " has a blank secret");
            }
        });
        return Map.copyOf(all);
    }

    /** Verifies the request's signature (an S3Exception if it does not hold) and remembers the context. */
    void authenticate(RoutingContext ctx) {
        HttpServerRequest req = ctx.request();
        SignedRequest signed = new SignedRequest(req.method().name(), req.path(), req.query(),
                name -> {
                    List<String> values = req.headers().getAll(name);
                    if (values.isEmpty() && name.equalsIgnoreCase("host") && req.authority() != null) {
                        // HTTP/2 (h2c) carries the host as the :authority pseudo-header
                        HostAndPort authority = req.authority();
                        return List.of(authority.port() < 0
                                ? authority.host()
                                : authority.host() + ":" + authority.port());
                    }
                    return values;
                });
        ctx.put(SIGNING, verifier.verify(signed));
    }

    /** The verified signing context of this request, or null when auth is off. */
    static SigningContext signing(RoutingContext ctx) {
        return ctx.get(SIGNING);
    }
}
