package io.promptcache.index.tenancy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.HttpHeaders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
import io.promptcache.schema.secret.SecretFile;
import io.quarkus.runtime.StartupEvent;

/**
 * API keys bound to tenants ({@code promptcache.index.auth.*}). A key is sent as {@code Authorization: Bearer <key>}
 * or {@code X-Api-Key: <key>}. In {@code api-key} mode a missing or unknown key is 401 and a namespace or object of
 * another tenant is 403. A key also names the caller's identity within its tenant ({@link Caller#principal()}): the
 * principal its line names ({@code <tenant>/<name>}, shared by every key of that principal, so a rotation keeps the
 * owner), or else the key itself; the owner of what it stores, and the only one who deletes it. In {@code open} mode
 * (local development) no key is asked for; that is logged at start.
 */
@ApplicationScoped
public class Tenancy {

    private static final Logger LOG = LoggerFactory.getLogger(Tenancy.class);
    public static final String API_KEY_HEADER = "X-Api-Key";

    private final boolean open;
    /** A principal's name: letters, digits, '.', '_' and '-'; "key-..." is the name of a key's own principal. */
    private static final Pattern PRINCIPAL = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /**
     * SHA-256 of each key -> who it is: keys are compared as digests, never kept as text. Replaced whole when the keys
     * file changes.
     */
    private volatile Map<String, Caller> callerByKeyDigest;
    /** The keys file's watch, or null without one. */
    private final SecretFile keysFile;

    Tenancy(IndexConfig config) {
        this.open = config.auth().mode() == IndexConfig.Auth.Mode.OPEN;
        Map<String, List<String>> configured = new LinkedHashMap<>();
        config.auth().tenants().forEach((tenant, settings) -> {
            settings.apiKeys().ifPresent(keys -> configured.put(tenant, keys));
            settings.principals().forEach((name, principal) -> configured.put(tenant + "/" + name,
                    principal.apiKeys()));
        });
        if (config.auth().keysFile().isPresent()) {
            this.keysFile = SecretFile.watch(config.auth().keysFile().get(), config.auth().reloadInterval(),
                    entries -> table(configured, entries), table -> callerByKeyDigest = table);
        } else {
            this.keysFile = null;
            this.callerByKeyDigest = table(configured, Map.of());
        }
    }

    /**
     * The key table of the configured keys and a keys file's lines ({@code <tenant>=<key>[,<key>]} or
     * {@code <tenant>/<principal>=<key>[,<key>]}); refuses blank keys, a key of two tenants or principals, a malformed
     * principal, and no key at all in {@code api-key} mode.
     */
    private Map<String, Caller> table(Map<String, List<String>> configured, Map<String, String> fileLines) {
        Map<String, List<String>> all = new LinkedHashMap<>(configured);
        fileLines.forEach((name, keys) -> all.merge(name, Arrays.stream(keys.split(",")).map(String::strip)
                .toList(), (a, b) -> Stream.concat(a.stream(), b.stream()).toList()));
        Map<String, Caller> table = new HashMap<>();
        all.forEach((name, keys) -> {
            int slash = name.indexOf('/');
            String tenant = slash < 0 ? name : name.substring(0, slash);
            String principal = slash < 0 ? null : name.substring(slash + 1);
            if (principal != null && (!PRINCIPAL.matcher(principal).matches() || principal.startsWith("key-"))) {
                throw new IllegalArgumentException("principal '" + principal + "' of tenant " + tenant + " must be "
                        + "1-64 letters, digits, '.', '_' or '-', and not start with 'key-' (a key's own principal)");
            }
            keys.forEach(key -> {
                if (key.isBlank()) {
                    throw new IllegalArgumentException(name + " has a blank API key");
                }
                String digest = digest(key);
                Caller caller = new Caller(tenant, tenant + "/" + (principal == null
                        ? "key-" + digest.substring(0, 12)
                        : principal));
                Caller previous = table.put(digest, caller);
                if (previous != null && !previous.equals(caller)) {
                    throw new IllegalArgumentException("one API key is configured for " + previous.principal()
                            + " and " + caller.principal() + ": a key belongs to exactly one tenant and principal");
                }
            });
        });
        if (!open && table.isEmpty()) {
            throw new IllegalArgumentException("promptcache.index.auth.mode=api-key (the default) needs at least one "
                    + "key: set promptcache.index.auth.tenants.<tenant>.api-keys=<key>[,<next key>] (env "
                    + "PROMPTCACHE_INDEX_AUTH_TENANTS_<TENANT>_API_KEYS) or lines <tenant>=<key> in "
                    + "promptcache.index.auth.keys-file, or promptcache.index.auth.mode=open for local development "
                    + "without keys");
        }
        return Map.copyOf(table);
    }

    @PreDestroy
    void stopWatching() {
        if (keysFile != null) {
            keysFile.close();
        }
    }

    void logMode(@Observes StartupEvent event) {
        if (open) {
            LOG.warn("Auth mode OPEN: no API keys, every caller reaches every namespace. For local development only; "
                    + "set promptcache.index.auth.mode=api-key and promptcache.index.auth.tenants.<tenant>.api-keys");
        } else {
            Map<String, Caller> table = callerByKeyDigest;
            LOG.info("Auth mode API-KEY: {} key(s) for {} tenant(s){}", table.size(),
                    table.values().stream().map(Caller::tenant).distinct().count(), keysFile == null
                            ? ""
                            : " (keys file re-read)");
        }
    }

    /** The caller of a request (401 in api-key mode without a valid key). */
    public Caller caller(HttpHeaders headers) {
        return caller(headers.getHeaderString(HttpHeaders.AUTHORIZATION), headers.getHeaderString(API_KEY_HEADER));
    }

    /**
     * The caller of a request with these {@code Authorization} and {@code X-Api-Key} header values (either may be
     * null; 401 in api-key mode without a valid key).
     */
    public Caller caller(String authorization, String apiKey) {
        if (open) {
            return Caller.OPEN;
        }
        String key = key(authorization, apiKey);
        if (key == null) {
            throw new ApiException(ApiErrorCode.MISSING_API_KEY,
                    "send an API key: Authorization: Bearer <key> or " + API_KEY_HEADER + ": <key>");
        }
        Caller caller = callerByKeyDigest.get(digest(key));
        if (caller == null) {
            throw new ApiException(ApiErrorCode.INVALID_API_KEY, "the API key is not configured for any tenant");
        }
        return caller;
    }

    /** 403 unless the caller may use what {@code ownerTenant} owns. */
    public void authorize(Caller caller, String ownerTenant, String what) {
        if (!caller.mayUse(ownerTenant)) {
            throw new ApiException(ApiErrorCode.FORBIDDEN,
                    what + " belongs to another tenant; this API key is bound to tenant " + caller.tenant());
        }
    }

    private static String key(String authorization, String apiKey) {
        if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            String key = authorization.substring(7).trim();
            return key.isEmpty() ? null : key;
        }
        return apiKey == null || apiKey.isBlank() ? null : apiKey.trim();
    }

    private static String digest(String key) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK provides SHA-256", e);
        }
    }
}
