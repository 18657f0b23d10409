package io.promptcache.index.tenancy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.HttpHeaders;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.promptcache.index.config.IndexConfig;
import io.promptcache.index.error.ApiErrorCode;
import io.promptcache.index.error.ApiException;
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
    /** SHA-256 of each key -> tenant: keys are compared as digests, never kept as text. */
    private final Map<String, String> tenantByKeyDigest = new HashMap<>();

    Tenancy(IndexConfig config) {
        this.open = config.auth().mode() == IndexConfig.Auth.Mode.OPEN;
        config.auth().tenants().forEach((tenant, settings) -> settings.apiKeys().forEach(key -> {
            if (key.isBlank()) {
                throw new IllegalArgumentException("tenant " + tenant + " has a blank API key");
            }
            String previous = tenantByKeyDigest.put(digest(key), tenant);
            if (previous != null && !previous.equals(tenant)) {
                throw new IllegalArgumentException("one API key is configured for tenants " + previous + " and "
                        + tenant + ": a key belongs to exactly one tenant");
            }
        }));
        if (!open && tenantByKeyDigest.isEmpty()) {
            throw new IllegalArgumentException("promptcache.index.auth.mode=api-key (the default) needs at least one "
                    + "key: set promptcache.index.auth.tenants.<tenant>.api-keys=<key>[,<next key>] (env "
                    + "PROMPTCACHE_INDEX_AUTH_TENANTS_<TENANT>_API_KEYS), or promptcache.index.auth.mode=open for "
                    + "local development without keys");
        }
    }

    void logMode(@Observes StartupEvent event) {
        if (open) {
            LOG.warn("Auth mode OPEN: no API keys, every caller reaches every namespace. For local development only; "
                    + "set promptcache.index.auth.mode=api-key and promptcache.index.auth.tenants.<tenant>.api-keys");
        } else {
            LOG.info("Auth mode API-KEY: {} key(s) for {} tenant(s)", tenantByKeyDigest.size(),
                    tenantByKeyDigest.values().stream().distinct().count());
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
