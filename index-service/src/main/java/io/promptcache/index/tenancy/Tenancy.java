package io.promptcache.index.tenancy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * another tenant is 403. The key is also the caller's identity within its tenant ({@link Caller#principal()}): the
 * owner of what it stores, and the only one who deletes it. In {@code open} mode (local development) no key is asked
 * for; that is logged at start.
 */
@ApplicationScoped
public class Tenancy {

    private static final Logger LOG = LoggerFactory.getLogger(Tenancy.class);
    public static final String API_KEY_HEADER = "X-Api-Key";

    private final boolean open;
    /**
     * SHA-256 of each key -> tenant: keys are compared as digests, never kept as text. Replaced whole when the keys
     * file changes.
     */
    private volatile Map<String, String> tenantByKeyDigest;
    /** The keys file's watch, or null without one. */
    private final SecretFile keysFile;

    Tenancy(IndexConfig config) {
        this.open = config.auth().mode() == IndexConfig.Auth.Mode.OPEN;
        Map<String, List<String>> configured = new LinkedHashMap<>();
        config.auth().tenants().forEach((tenant, settings) -> configured.put(tenant, settings.apiKeys()));
        if (config.auth().keysFile().isPresent()) {
            this.keysFile = SecretFile.watch(config.auth().keysFile().get(), config.auth().reloadInterval(),
                    entries -> table(configured, entries), table -> tenantByKeyDigest = table);
        } else {
            this.keysFile = null;
            this.tenantByKeyDigest = table(configured, Map.of());
        }
    }

    /**
     * The key table of the configured keys and a keys file's lines ({@code <tenant>=<key>[,<key>]}); refuses blank
     * keys, a key of two tenants, and no key at all in {@code api-key} mode.
     */
    private Map<String, String> table(Map<String, List<String>> configured, Map<String, String> fileLines) {
        Map<String, List<String>> all = new LinkedHashMap<>(configured);
        fileLines.forEach((tenant, keys) -> all.merge(tenant, Arrays.stream(keys.split(",")).map(String::strip)
                .toList(), (a, b) -> Stream.concat(a.stream(), b.stream()).toList()));
        Map<String, String> table = new HashMap<>();
        all.forEach((tenant, keys) -> keys.forEach(key -> {
            if (key.isBlank()) {
                throw new IllegalArgumentException("tenant " + tenant + " has a blank API key");
            }
            String previous = table.put(digest(key), tenant);
            if (previous != null && !previous.equals(tenant)) {
                throw new IllegalArgumentException("one API key is configured for tenants " + previous + " and "
                        + tenant + ": a key belongs to exactly one tenant");
            }
        }));
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
            Map<String, String> table = tenantByKeyDigest;
            LOG.info("Auth mode API-KEY: {} key(s) for {} tenant(s){}", table.size(),
                    table.values().stream().distinct().count(), keysFile == null ? "" : " (keys file re-read)");
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
        String digest = digest(key);
        String tenant = tenantByKeyDigest.get(digest);
        if (tenant == null) {
            throw new ApiException(ApiErrorCode.INVALID_API_KEY, "the API key is not configured for any tenant");
        }
        return new Caller(tenant, tenant + "/key-" + digest.substring(0, 12));
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
