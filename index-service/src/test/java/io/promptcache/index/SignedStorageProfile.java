package io.promptcache.index;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The index signs its storage requests with a key its test's node knows: the profile of the {@code @QuarkusTest}s
 * whose node checks SigV4 ({@code @NodeConfig} with {@link #NODE_AUTH} and {@link #NODE_CREDENTIALS}).
 */
public class SignedStorageProfile implements QuarkusTestProfile {

    public static final String KEY_ID = "index-key";
    public static final String SECRET = "index-secret-0123456789";
    public static final String NODE_AUTH = "promptcache.storage.auth.mode=sigv4";
    public static final String NODE_CREDENTIALS = "promptcache.storage.auth.credentials." + KEY_ID + "=" + SECRET;

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("promptcache.index.storage.access-key-id", KEY_ID,
                "promptcache.index.storage.secret-access-key", SECRET);
    }
}
